import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { bundledServer, cliTestSetup, writeConfig } from "../support/cli-setup.js";
import type { RecordedRequest } from "../support/vllm-server.js";

/** `run` (the built CLI) honours the config's hooks and its allow/deny rules by pattern. */
let home: string;
const { startModel } = cliTestSetup("toolbridge-run-hooks-", (dir) => (home = dir));

const config = (name: string, extra: Record<string, unknown>, trust = false): string => writeConfig(home, `${name}.json`, { time: bundledServer("time", trust) }, extra);

function script(name: string, body: string): string {
  const file = join(home, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o700);
  return file;
}

async function runWith(configFile: string): Promise<{ stdout: string; toolResult: string }> {
  const server = await startModel({ replies: [{ toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }] }, { text: "done" }] });
  const result = await runCli(["run", "date?", "--base-url", server.url, "--config", configFile], { cwd: home });
  const messages = (server.chatRequests[1] as RecordedRequest | undefined)?.body?.messages as Array<{ role: string; content: unknown }> | undefined;
  return { stdout: result.stdout, toolResult: String(messages?.find((message) => message.role === "tool")?.content ?? "") };
}

describe("run with rules by pattern", () => {
  it("runs an untrusted server's tool that an allow rule covers, with nobody to ask", async () => {
    const { toolResult } = await runWith(config("allow", { permissions: { allow: ["time__get*"] } }));
    expect(toolResult).toMatch(/\d{4}/);
    expect(toolResult).not.toContain("Not run");
  });

  it("refuses a trusted server's tool that a deny rule covers, naming the rule", async () => {
    const { toolResult } = await runWith(config("deny", { permissions: { deny: ["time__*"] } }, true));
    expect(toolResult).toContain('denied by the rule "time__*"');
  });
});

describe("run with hooks", () => {
  it("denies a call when a PreToolUse hook exits 2, its stderr the reason the model reads", async () => {
    const hook = script("deny.sh", `cat > /dev/null; echo "dates are off limits" >&2; exit 2`);
    const { toolResult, stdout } = await runWith(config("pre", { hooks: { PreToolUse: [{ matcher: "get-.*", hooks: [{ type: "command", command: hook }] }] } }, true));
    expect(toolResult).toContain("dates are off limits");
    expect(stdout).toBe("done\n");
  });

  it("adds a PostToolUse hook's context to the result the model reads", async () => {
    const hook = script("post.sh", `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"checked by the hook"}}'`);
    const { toolResult } = await runWith(config("post", { hooks: { PostToolUse: [{ hooks: [{ type: "command", command: hook }] }] } }, true));
    expect(toolResult).toMatch(/\d{4}/);
    expect(toolResult).toContain("checked by the hook");
  });
});
