import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, waitUntil, WrittenPids } from "../mcp/processes.js";
import { isAlive } from "../support/processes.js";
import { startVllmServer, type VllmServer } from "../support/vllm-server.js";

/**
 * The built CLI against servers that do not end when asked: signals while servers start
 * and while a tool runs, SIGHUP, and servers that outlive the end of their stdin.
 */

const CLI = join(import.meta.dirname, "../../dist/cli/main.js");
const home = mkdtempSync(join(tmpdir(), "toolbridge-signals-"));
let files = 0;
let model: VllmServer | undefined;
const written = new WrittenPids(home);
const pidFile = (): string => written.file();
const readPid = (file: string): Promise<number> => written.read(file);

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
});
afterAll(() => rmSync(home, { recursive: true, force: true }));
afterEach(async () => {
  await model?.close();
  model = undefined;
  await written.expectAllGone();
});

/**
 * A config whose one server runs behind `sh -c`, leaving a `sleep` in the background;
 * `group` resolves with the shell's and the sleep's pids once they are written.
 */
function shellServerConfig(name: string, script: string, extra: Record<string, unknown> = {}): { config: string; group: () => Promise<number[]> } {
  const shell = pidFile();
  const sleeper = pidFile();
  const config = writeConfig({ [name]: { command: "/bin/sh", args: ["-c", `echo $$ > ${shell}; sleep 1000 & echo $! > ${sleeper}; ${script}`], ...extra } });
  return { config, group: async () => [await readPid(shell), await readPid(sleeper)] };
}

function writeConfig(servers: Record<string, unknown>): string {
  const file = join(home, `config-${files++}.json`);
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

interface Running {
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
  kill: (signal: NodeJS.Signals) => void;
}

function start(args: string[], input = ""): Running {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: home, XDG_STATE_HOME: home, NO_COLOR: "1" };
  delete env.OPENAI_BASE_URL;
  delete env.OPENAI_API_KEY;
  const child = spawn(process.execPath, [CLI, ...args], { cwd: home, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(input);
  // Bounds the test, never what it asserts: a CLI still running then has failed it.
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve(signal === "SIGKILL" ? null : code);
    }),
  );
  return { stdout: () => stdout, stderr: () => stderr, exited, kill: (signal) => child.kill(signal) };
}

describe("signals while servers start", () => {
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const) {
    it(`stops at once on ${signal} while a server hangs on initialize, ending it and what it started`, async () => {
      const { config, group } = shellServerConfig("slow", `exec ${process.execPath} ${FIXTURES}hang-on-initialize.mjs`, { startupTimeoutMs: 120_000 });
      const run = start(["tools", "-c", config]);
      const pids = await group();
      run.kill(signal);
      // The startup timeout is two minutes: only stopping at once ends the run before the test's bound.
      expect(await run.exited).toBe(code);
      await waitUntil(() => !pids.some(isAlive), 3000, "the server group to end");
    }, 40_000);
  }

  it("run says it is stopping the moment Ctrl-C comes while a server starts, and ends it before its startup timeout", async () => {
    const { config, group } = shellServerConfig("slow", `exec ${process.execPath} ${FIXTURES}hang-on-initialize.mjs`, { startupTimeoutMs: 120_000 });
    model = await startVllmServer({ replies: [] });
    const run = start(["run", "-c", config, "--base-url", model.url, "what time is it?"]);
    const pids = await group();
    run.kill("SIGINT");
    // The startup timeout is two minutes: only stopping at once ends the run before the test's bound.
    expect(await run.exited).toBe(130);
    expect(run.stderr()).toMatch(/^stopping…$/m);
    await waitUntil(() => !pids.some(isAlive), 3000, "the server group to end");
    expect(model.chatRequests).toHaveLength(0);
  }, 40_000);
});

describe("servers that outlive their stdin", () => {
  it("returns after call prints its answer though the server behind sh -c ignores EOF", async () => {
    const { config, group } = shellServerConfig("raw", `${process.execPath} ${FIXTURES}raw-hostile.mjs --ignore-sigterm`);
    const run = start(["call", "echo", "-c", config]);
    const pids = await group();
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toBe("ok\n");
    await waitUntil(() => !pids.some(isAlive), 3000, "the server group to end");
  }, 40_000);

  it("exits 129 on SIGHUP during a call and ends the server", async () => {
    const { config, group } = shellServerConfig("raw", `exec ${process.execPath} ${FIXTURES}raw-hostile.mjs`);
    const run = start(["call", "progress-forever", "-c", config]);
    const pids = await group();
    run.kill("SIGHUP");
    expect(await run.exited).toBe(129);
    await waitUntil(() => !pids.some(isAlive), 3000, "the server group to end");
  }, 40_000);
});

describe("SIGTERM to chat during a tool call", () => {
  it("reports the call as cancelled and prints no further answer", async () => {
    const { config, group } = shellServerConfig("raw", `exec ${process.execPath} ${FIXTURES}raw-hostile.mjs`);
    model = await startVllmServer({ replies: [{ toolCalls: [{ name: "progress-forever", arguments: {} }] }, { text: "AFTERWARDS" }] });
    const run = start(["chat", "--base-url", model.url, "--config", config, "--approve", "all"], "go\n");
    await group();
    await waitUntil(() => run.stderr().includes("progress-forever"), 20_000, "the tool call to start");
    run.kill("SIGTERM");
    expect(await run.exited).toBe(143);
    expect(run.stderr()).toContain("cancelled");
    expect(run.stderr()).not.toContain("closed the connection");
    expect(run.stdout()).not.toContain("AFTERWARDS");
    expect(model.chatRequests).toHaveLength(1);
  }, 40_000);
});
