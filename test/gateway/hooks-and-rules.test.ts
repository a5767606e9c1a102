import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import { turnSettings } from "../../src/gateway/settings.js";
import { sessionSettings } from "../../src/host/session-settings.js";
import { openaiClient, startHarness, type Harness } from "./harness.js";

/** The gateway's turns honour the config's hooks and allow/deny rules, read by the one turnSettings. */
let dir: string;
let harness: Harness | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbridge-gateway-hooks-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const dateCall = { toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }] };

async function ask(config: Record<string, unknown>, approve: "ask" | "all" = "ask"): Promise<string> {
  const parsed = parseConfig(JSON.stringify({ mcpServers: {}, ...config }), { env: { PATH: process.env.PATH ?? "" } });
  const settings = turnSettings(parsed, sessionSettings(parsed, {}, { PATH: process.env.PATH }));
  const { servers: _servers, ...fromConfig } = settings;
  harness = await startHarness({ replies: [dateCall, { text: "done" }], trustTime: false, approve, turnSettings: { ...fromConfig, approve } });
  const reply = await openaiClient(harness).chat.completions.create({ model: "Qwen/Qwen3-8B", messages: [{ role: "user", content: "date?" }] });
  expect(reply.choices[0]?.message.content).toBe("done");
  const messages = harness.upstream.chatRequests[1]?.body?.messages as Array<{ role: string; content: unknown }>;
  return String(messages.find((message) => message.role === "tool")?.content);
}

describe("the gateway with the config's rules and hooks", () => {
  it("runs an untrusted tool an allow rule covers, where API clients cannot be asked", async () => {
    expect(await ask({ permissions: { allow: ["time__*"] } })).toMatch(/\d{4}/);
  });

  it("refuses a tool a deny rule covers, even with approve all", async () => {
    expect(await ask({ permissions: { allow: ["time__*"], deny: ["time__get-*"] } }, "all")).toContain('denied by the rule "time__get-*"');
  });

  it("denies a call when a PreToolUse hook says so in JSON", async () => {
    const hook = join(dir, "deny.sh");
    writeFileSync(hook, `#!/bin/sh\necho '{"decision":"block","reason":"no dates over the API"}'\n`);
    chmodSync(hook, 0o700);
    const result = await ask({ permissions: { allow: ["time__*"] }, hooks: { PreToolUse: [{ matcher: "get-date", hooks: [{ type: "command", command: hook }] }] } });
    expect(result).toContain("no dates over the API");
  });
});
