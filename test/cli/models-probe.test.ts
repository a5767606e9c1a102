import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "../support/cli.js";
import { startVllmServer, type VllmServer } from "../support/vllm-server.js";

/**
 * `toolbridge models probe` and `--tool-mode auto` end to end: the built CLI, the bundled
 * time server, and a scripted server that streams what vLLM streams (TEST INFRASTRUCTURE).
 */
const rightCall = { toolCalls: [{ name: "add", arguments: { a: 17, b: 25 } }] };
const rightText = { text: '<tool_call>\n{"name": "add", "arguments": {"a": 17, "b": 25}}\n</tool_call>' };
const wrongCall = { toolCalls: [{ name: "add", arguments: { a: 1, b: 2 } }] };

let home: string;
let state: string;
let server: VllmServer;
const env = () => ({ XDG_STATE_HOME: state });
const cacheFile = () => join(state, "toolbridge", "tool-modes.json");

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "toolbridge-probe-cli-"));
  state = join(home, "state");
  writeFileSync(join(home, "toolbridge.json"), JSON.stringify({ mcpServers: { time: { command: process.execPath, args: [CLI, "serve", "time"], trust: true } } }));
  server = await startVllmServer({ otherModels: ["second-model", "hanging-model"] });
});
afterAll(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

describe("toolbridge models probe", () => {
  it("prints each mode's result and time, caches the table privately, and names the best mode", async () => {
    server.push(rightCall, rightCall, rightText);
    const result = await runCli(["models", "probe", "--base-url", server.url], { cwd: home, env: env() });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toBe(`Qwen/Qwen3-8B at ${server.url}`);
    expect(lines[1]).toMatch(/^MODE\s+RESULT\s+MS\s+DETAIL$/);
    expect(lines.slice(2, 5).map((line) => line.split(/\s+/).slice(0, 2))).toEqual([
      ["native-strict", "ok"],
      ["native", "ok"],
      ["prompt", "ok"],
    ]);
    expect(lines[5]).toBe("best: native-strict (cached; --tool-mode auto follows it)");
    expect(statSync(cacheFile()).mode & 0o777).toBe(0o600);
    expect(statSync(join(state, "toolbridge")).mode & 0o777).toBe(0o700);
    const cached = JSON.parse(readFileSync(cacheFile(), "utf8"));
    expect(cached.models[`${server.url} Qwen/Qwen3-8B`].rows.map((row: { mode: string; ok: boolean }) => row.ok)).toEqual([true, true, true]);
  });

  it("gives a hanging server one line per mode and fails, within the configured time", async () => {
    const config = join(home, "short-timeout.json");
    writeFileSync(config, JSON.stringify({ mcpServers: {}, llm: { requestTimeoutMs: 400 } }));
    server.push({ kind: "hang" });
    const from = server.chatRequests.length;
    const result = await runCli(["models", "probe", "hanging-model", "--base-url", server.url, "-c", config, "--json"], { cwd: home, env: env() });
    expect(result.code).toBe(1);
    const table = JSON.parse(result.stdout);
    expect(table.best).toBeNull();
    expect(table.modes.map((row: { detail: string }) => row.detail)).toEqual(["no answer in 0.4 s", "not tried: no answer to native-strict in 0.4 s", "not tried: no answer to native-strict in 0.4 s"]);
    expect(server.chatRequests.length - from).toBe(1);
  });
});

describe("--tool-mode auto", () => {
  it("probes a model on first use, says so, and then talks to it in the best mode found", async () => {
    // native-strict and native call add with the wrong numbers; only prompt mode gets it right.
    server.push(wrongCall, wrongCall, rightText, { text: "It is 7 January 2026." });
    const from = server.chatRequests.length;
    const result = await runCli(["run", "--base-url", server.url, "--model", "second-model", "--tool-mode", "auto", "What is the date?"], { cwd: home, env: env() });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("It is 7 January 2026.");
    expect(result.stderr).toContain("Probing how second-model calls tools best");
    expect(result.stderr).toContain("second-model: prompt tool calling.");
    const requests = server.chatRequests.slice(from);
    expect(requests).toHaveLength(4);
    // The turn itself, in prompt mode: tools described in the prompt, none in the request.
    expect(requests[3]?.body.tools).toBeUndefined();
    expect(JSON.stringify(requests[3]?.body.messages)).toContain("get-date");
  });

  it("follows the cached result without probing again, also when no tool mode is set", async () => {
    server.push({ text: "Still 7 January." }, { text: "Yes." });
    const from = server.chatRequests.length;
    const auto = await runCli(["run", "--base-url", server.url, "--model", "second-model", "--tool-mode", "auto", "And now?"], { cwd: home, env: env() });
    const unset = await runCli(["run", "--base-url", server.url, "--model", "second-model", "Sure?"], { cwd: home, env: env() });
    expect([auto.code, unset.code]).toEqual([0, 0]);
    expect(auto.stderr).not.toContain("Probing");
    const requests = server.chatRequests.slice(from);
    expect(requests).toHaveLength(2);
    expect(requests.map((r) => r.body.tools)).toEqual([undefined, undefined]);
  });
});

describe("a server that refuses strict", () => {
  it("is asked once with strict in the first run, and never again in the next one", async () => {
    // Like vLLM 0.9: a tool with `function.strict` gets pydantic's 400.
    const old = await startVllmServer({ strictTools: false });
    try {
      const strictSent = (from: number) =>
        old.chatRequests.slice(from).map((r) => (r.body.tools as Array<{ function: { strict?: boolean } }>).some((t) => t.function.strict === true));
      old.push({ text: "It is 7 January 2026." });
      const first = await runCli(["run", "--base-url", old.url, "--tool-mode", "native", "What is the date?"], { cwd: home, env: env() });
      expect(first.code).toBe(0);
      expect(first.stdout).toContain("It is 7 January 2026.");
      // The refusal, then the same request without strict.
      expect(strictSent(0)).toEqual([true, false]);
      const cached = JSON.parse(readFileSync(cacheFile(), "utf8"));
      expect(cached.models[`${old.url} Qwen/Qwen3-8B`].strictRefused).toBe(true);

      old.push({ toolCalls: [{ name: "get-date", arguments: {} }] }, { text: "Still 7 January." });
      const from = old.chatRequests.length;
      const second = await runCli(["run", "--base-url", old.url, "--tool-mode", "native", "And now?"], { cwd: home, env: env() });
      expect(second.code).toBe(0);
      expect(second.stdout).toContain("Still 7 January.");
      // Both requests of the turn (the call, then the answer) go without strict: no 400 to take again.
      expect(strictSent(from)).toEqual([false, false]);
    } finally {
      await old.close();
    }
  });
});
