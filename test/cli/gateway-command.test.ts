import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { CLI } from "../support/cli.js";
import { bundledServer, cliTestSetup, writeConfig } from "../support/cli-setup.js";
import { childPids, isAlive } from "../support/processes.js";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";

/** `toolbridge gateway` as users start it: the built CLI, the bundled time server, the scripted vLLM server. */

let home: string;
let config: string;
let child: ChildProcess | undefined;

const { startModel } = cliTestSetup("toolbridge-gateway-cli-", (dir) => {
  home = dir;
  config = writeConfig(dir, "toolbridge.json", { time: bundledServer("time") });
});
afterEach(() => {
  if (child?.exitCode === null) child.kill("SIGKILL");
  child = undefined;
});

function start(args: string[], env: NodeJS.ProcessEnv = {}, configFile = config): { child: ChildProcess; stderr: () => string; exited: Promise<number | null> } {
  const spawned = spawn(process.execPath, [CLI, "gateway", "--config", configFile, ...args], {
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: home, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child = spawned;
  let stderr = "";
  spawned.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => spawned.once("exit", (code) => resolve(code)));
  return { child: spawned, stderr: () => stderr, exited };
}

describe("toolbridge gateway", () => {
  it("serves chat completions with the MCP tools, and stops its servers on SIGTERM", async () => {
    const upstream = await startModel({ replies: [{ toolCalls: [{ name: "get-date", arguments: {} }] }, { text: "It is today." }] });
    const run = start(["--listen", "127.0.0.1:0", "--base-url", upstream.url, "--model", DEFAULT_VLLM_MODEL]);
    await expect.poll(run.stderr, { timeout: 60_000 }).toMatch(/listening on (http:\/\/\S+) /);
    const url = /listening on (http:\/\/\S+) /.exec(run.stderr())?.[1] as string;
    const servers = childPids(run.child.pid);
    expect(servers.length).toBeGreaterThan(0);
    const sdk = new OpenAI({ baseURL: `${url}/v1`, apiKey: "none", maxRetries: 0 });
    const completion = await sdk.chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "date?" }] });
    expect(completion.choices[0]?.message.content).toBe("It is today.");
    // Each request is logged as one JSON line.
    await expect.poll(run.stderr, { timeout: 15_000 }).toContain('"msg":"chat completion"');
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    for (const pid of servers) expect(isAlive(pid)).toBe(false);
  }, 120_000);

  it("stores responses within gateway.storeMaxBytesPerKey (a larger one is answered with store: false), and refuses a state directory others can write into", async () => {
    const upstream = await startModel({ replies: [{ text: "z".repeat(10_000) }] });
    const budgeted = join(home, "budgeted.json");
    writeFileSync(budgeted, JSON.stringify({ mcpServers: {}, gateway: { storeMaxBytesPerKey: 4096 } }));
    const state = join(home, "state-budget");
    const run = start(["--listen", "127.0.0.1:0", "--base-url", upstream.url, "--model", DEFAULT_VLLM_MODEL], { XDG_STATE_HOME: state }, budgeted);
    await expect.poll(run.stderr, { timeout: 60_000 }).toMatch(/listening on (http:\/\/\S+) /);
    expect(run.stderr()).toContain(`store directory ${join(state, "toolbridge", "gateway-store.db")})`);
    const url = /listening on (http:\/\/\S+) /.exec(run.stderr())?.[1] as string;
    const response = await new OpenAI({ baseURL: `${url}/v1`, apiKey: "none", maxRetries: 0 }).responses.create({ model: DEFAULT_VLLM_MODEL, input: "Say a lot." });
    expect(response).toMatchObject({ store: false });
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);

    const open = join(home, "state-open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    const refused = start(["--listen", "127.0.0.1:0", "--base-url", upstream.url, "--model", DEFAULT_VLLM_MODEL], { XDG_STATE_HOME: open }, budgeted);
    expect(await refused.exited).not.toBe(0);
    expect(refused.stderr()).toContain(`${open} is writable by other users (mode 0777), who could replace ${join(open, "toolbridge", "gateway-store.db")}: use a directory of your own`);
  }, 120_000);

  it.each(["0.0.0.0", "127.0.0.1.attacker.example"])("refuses to listen on %s without API keys: beyond loopback, whatever its name starts with", async (host) => {
    const run = start(["--listen", `${host}:0`, "--base-url", "http://127.0.0.1:9/v1", "--model", "m"]);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain(`listening on ${host} needs API keys`);
  }, 60_000);

  it("warns when listening beyond loopback, keys from the environment, and never prints them", async () => {
    const upstream = await startModel({ replies: [{ text: "hi" }] });
    const key = "tb-secret-key-for-the-test-0001";
    const run = start(["--listen", "0.0.0.0:0", "--base-url", upstream.url, "--model", DEFAULT_VLLM_MODEL], { TOOLBRIDGE_API_KEYS: key });
    await expect.poll(run.stderr, { timeout: 60_000 }).toMatch(/listening on http:\/\/0\.0\.0\.0:(\d+)/);
    expect(run.stderr()).toContain("other machines can reach it");
    const port = /listening on http:\/\/0\.0\.0\.0:(\d+)/.exec(run.stderr())?.[1];
    const sdk = new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: key, maxRetries: 0 });
    expect((await sdk.chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "x" }] })).choices[0]?.message.content).toBe("hi");
    await expect(new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: "wrong-key-000000000000", maxRetries: 0 }).models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    run.child.kill("SIGTERM");
    await run.exited;
    expect(run.stderr()).not.toContain(key);
    expect(run.stderr()).toContain('"caller":"key-1"');
  }, 120_000);

  it("denies a web-chat approval no one answers within gateway.approvalTimeoutSeconds, and the model reads why", async () => {
    const waiting = join(home, "approval-timeout.json");
    writeFileSync(waiting, JSON.stringify({ mcpServers: { time: { command: process.execPath, args: [CLI, "serve", "time"], trust: false } }, gateway: { approvalTimeoutSeconds: 1 } }));
    const upstream = await startModel({ replies: [{ toolCalls: [{ name: "get-date", arguments: {} }] }, { text: "Not without approval." }] });
    const run = start(["--listen", "127.0.0.1:0", "--base-url", upstream.url, "--model", DEFAULT_VLLM_MODEL], {}, waiting);
    await expect.poll(run.stderr, { timeout: 60_000 }).toMatch(/listening on (http:\/\/\S+) /);
    const url = /listening on (http:\/\/\S+) /.exec(run.stderr())?.[1] as string;
    const turn = await fetch(`${url}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: DEFAULT_VLLM_MODEL, history: [], input: "date?" }) });
    const events = await turn.text();
    expect(events).toContain('"type":"approval"');
    expect(events).toContain('"outcome":"denied"');
    expect(JSON.stringify(upstream.chatRequests.at(-1)?.body.messages)).toContain("no one answered the approval within 1 s, so it expired (gateway.approvalTimeoutSeconds)");
    run.child.kill("SIGTERM");
    await run.exited;
  }, 120_000);
});
