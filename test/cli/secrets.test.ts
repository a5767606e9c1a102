import { execFile } from "node:child_process";
import { describe, expect, it } from "vitest";
import { CLI } from "../support/cli.js";
import { cliTestSetup, writeConfig } from "../support/cli-setup.js";

/** Secrets in URLs and keys a server echoes never reach the terminal, in errors, warnings, listings or --verbose. */

const KEY = "sk-toolbridge-test-4f1c9a7e2b";
let home: string;
const { startModel } = cliTestSetup("toolbridge-secrets-", (dir) => (home = dir));

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const full: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: home, XDG_STATE_HOME: home, NO_COLOR: "1", ...env };
  delete full.OPENAI_BASE_URL;
  if (!("OPENAI_API_KEY" in env)) delete full.OPENAI_API_KEY;
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI, ...args], { cwd: home, env: full, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = (error as { code?: number } | null)?.code;
      resolve({ code: typeof code === "number" ? code : 0, stdout, stderr });
    });
    // Nothing piped in: `run` reads piped stdin as context until it ends.
    child.stdin?.end();
  });
}

const config = (servers: Record<string, unknown>, extra: Record<string, unknown> = {}): string => writeConfig(home, `config-${Math.random().toString(36).slice(2)}.json`, servers, extra);

describe("secrets", () => {
  it("redacts a 401 body that echoes the key, and the key in --verbose", async () => {
    const model = await startModel({ replies: [{ kind: "error", status: 401, message: `Invalid API key: ${KEY}`, format: "wrapped" }] });
    const run = await cli(["run", "hi", "--base-url", model.url, "--model", "m", "--verbose", "--config", config({}, { llm: { apiKeyEnv: "MY_MODEL_KEY" } })], { MY_MODEL_KEY: KEY });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("HTTP 401");
    expect(run.stderr).toContain("Invalid API key: ***");
    expect(`${run.stdout}${run.stderr}`).not.toContain(KEY);
  });

  it("redacts the password in --base-url in errors and --verbose", async () => {
    const run = await cli(["run", "hi", "--base-url", "http://alice:pa55word-in-url@127.0.0.1:9/v1", "--model", "m", "--verbose", "--config", config({})]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("127.0.0.1:9");
    expect(`${run.stdout}${run.stderr}`).not.toContain("pa55word-in-url");
  });

  it("redacts a server URL's token in the warning and in `servers`, as text and JSON", async () => {
    const file = config({ remote: { url: "http://bob:userinfo-secret@127.0.0.1:9/mcp?token=query-secret-77", startupTimeoutMs: 3000 } });
    const warned = await cli(["tools", "-c", file]);
    expect(warned.stderr).toContain('server "remote" failed to start');
    for (const run of [warned, await cli(["servers", "-c", file]), await cli(["servers", "--json", "-c", file])]) {
      expect(`${run.stdout}${run.stderr}`).not.toMatch(/query-secret-77|userinfo-secret/);
    }
  });
});
