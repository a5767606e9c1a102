import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, cliEnv } from "../support/cli.js";
import { bundledServer, cliTestSetup, writeConfig } from "../support/cli-setup.js";
import { childPids, isAlive } from "../support/processes.js";
import { Tmux } from "../support/tmux.js";
import { DEFAULT_VLLM_MODEL, type VllmServer } from "../support/vllm-server.js";

/**
 * `toolbridge launch` as users run it: the built CLI, the bundled math server, the scripted
 * vLLM server as the model, and on PATH the real Claude Code and Codex (see
 * test/gateway/claude-code.test.ts and codex.test.ts), or a stand-in that reports what it was given.
 */

const CLAUDE = realpathSync(fileURLToPath(new URL("../../node_modules/.bin/claude", import.meta.url)));
const CODEX = process.env.TOOLBRIDGE_CODEX ?? fileURLToPath(new URL("../codex/node_modules/codex/vendor/x86_64-unknown-linux-musl/bin/codex", import.meta.url));

/**
 * The stand-in: prints what it was given as one JSON line (with the status of /v1/models asked
 * with the key it was given and with none), then exits with the code in $STAND_IN_EXIT, or
 * with "wait" prints "ready" (and whether it has a terminal) and waits for a signal, which it
 * reports and exits 100.
 */
const STAND_IN = `#!${process.execPath}
const env = process.env;
const url = env.ANTHROPIC_BASE_URL;
const key = env.ANTHROPIC_AUTH_TOKEN;
const status = (headers) => fetch(url + "/v1/models", { headers }).then((r) => r.status);
const withKey = await status({ authorization: "Bearer " + key });
const without = await status({});
console.log(JSON.stringify({ pid: process.pid, argv: process.argv.slice(2), url, key, apiKey: env.ANTHROPIC_API_KEY, model: env.ANTHROPIC_MODEL, haiku: env.ANTHROPIC_DEFAULT_HAIKU_MODEL, withKey, without }));
if (env.STAND_IN_EXIT === "wait") {
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => { console.log("got " + signal); process.exit(100); });
  console.log(\`ready (terminal: \${Boolean(process.stdin.isTTY && process.stdout.isTTY)})\`);
  setInterval(() => undefined, 1000);
} else process.exit(Number(env.STAND_IN_EXIT ?? 0));
`;

let home: string;
let config: string;
/** The running test's model server, which MODEL_FLAGS names. */
let upstream: VllmServer | undefined;
let child: ChildProcess | undefined;
let term: Tmux | undefined;

const { startModel } = cliTestSetup("toolbridge-launch-", (dir) => {
  home = dir;
  config = writeConfig(dir, "toolbridge.json", { math: bundledServer("math") });
});
afterEach(async () => {
  if (child?.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  child = undefined;
  await term?.close();
  term = undefined;
});

/** A directory for PATH holding `name`, a link to `target` or a script with `text`. */
function binDir(name: string, tool: { target: string } | { text: string }): string {
  const dir = mkdtempSync(join(home, "bin-"));
  if ("target" in tool) symlinkSync(tool.target, join(dir, name));
  else writeFileSync(join(dir, name), tool.text, { mode: 0o755 });
  return dir;
}

interface Launched {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** `toolbridge launch ...` with PATH = `bin` and the system's directories, its output piped. */
function launch(args: string[], bin: string, env: Record<string, string> = {}): Launched {
  const spawned = spawn(process.execPath, [CLI, "launch", ...args], {
    cwd: home,
    env: { ...cliEnv(home), PATH: [bin, dirname(process.execPath), "/usr/bin", "/bin"].join(":"), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child = spawned;
  let stdout = "";
  let stderr = "";
  spawned.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  spawned.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => spawned.kill("SIGKILL"), 100_000);
  const exited = new Promise<number | null>((resolve) =>
    spawned.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    }),
  );
  return { child: spawned, stdout: () => stdout, stderr: () => stderr, exited };
}

const MODEL_FLAGS = () => ["--config", config, "--base-url", (upstream as VllmServer).url, "--model", DEFAULT_VLLM_MODEL];

/** Whether something still accepts connections at `url`. */
function listening(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("toolbridge launch", () => {
  it("runs real Claude Code against the gateway: it asks for the chosen model and the hub's multiply runs inside", { timeout: 120_000 }, async () => {
    upstream = await startModel({ replies: [{ toolCalls: [{ name: "multiply", arguments: { a: 6, b: 7 } }] }, { text: "6 times 7 is 42." }] });
    const run = launch(["claude", ...MODEL_FLAGS(), "--", "-p", "What is 6 times 7?"], binDir("claude", { target: CLAUDE }), {
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
    });
    expect(await run.exited).toBe(0);
    expect(run.stdout().trim()).toBe("6 times 7 is 42.");
    expect(run.stderr()).toBe("");
    const [first, second] = upstream.chatRequests.map((request) => request.body);
    expect(first.model).toBe(DEFAULT_VLLM_MODEL);
    const offered = (first.tools as { function: { name: string } }[]).map((tool) => tool.function.name);
    expect(offered).toEqual(expect.arrayContaining(["Read", "Bash", "multiply"]));
    expect(second.messages.at(-1)).toMatchObject({ role: "tool", content: expect.stringContaining("42") });
  });

  it.skipIf(!existsSync(CODEX))("runs real Codex exec against the gateway's Responses API: the hub's multiply runs inside", { timeout: 120_000 }, async () => {
    upstream = await startModel({ replies: [{ toolCalls: [{ name: "multiply", arguments: { a: 6, b: 7 } }] }, { text: "It is 42." }] });
    const codexHome = join(home, "codex");
    mkdirSync(codexHome, { recursive: true });
    const run = launch(["codex", ...MODEL_FLAGS(), "--", "exec", "--skip-git-repo-check", "What is 6 times 7?"], binDir("codex", { target: CODEX }), { CODEX_HOME: codexHome });
    expect(await run.exited).toBe(0);
    expect(run.stdout().trim()).toBe("It is 42.");
    const [first, second] = upstream.chatRequests.map((request) => request.body);
    expect(first.model).toBe(DEFAULT_VLLM_MODEL);
    const offered = (first.tools as { function: { name: string } }[]).map((tool) => tool.function.name);
    expect(offered).toEqual(expect.arrayContaining(["multiply", "exec_command"]));
    expect(second.messages.at(-1)).toMatchObject({ role: "tool", content: expect.stringContaining("42") });
    // Codex's own config was not written to: the provider came on its command line.
    expect(existsSync(join(codexHome, "config.toml"))).toBe(false);
  });

  it("gives the tool the gateway, a key only it holds, and the model; passes its exit code through and leaves no port or server behind", { timeout: 120_000 }, async () => {
    upstream = await startModel({ replies: [] });
    const run = launch(["claude", ...MODEL_FLAGS(), "--", "--its-own", "flag"], binDir("claude", { text: STAND_IN }), { STAND_IN_EXIT: "7", ANTHROPIC_API_KEY: "the-users-own-key" });
    await expect.poll(() => childPids(run.child.pid).length, { timeout: 60_000 }).toBeGreaterThan(0);
    const servers = childPids(run.child.pid);
    expect(await run.exited).toBe(7);
    const given = JSON.parse(run.stdout().split("\n")[0] as string);
    expect(given).toMatchObject({ argv: ["--its-own", "flag"], url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), apiKey: "", model: DEFAULT_VLLM_MODEL, haiku: DEFAULT_VLLM_MODEL, withKey: 200, without: 401 });
    expect(given.key).toMatch(/^[\w-]{40,}$/);
    expect(run.stderr()).not.toContain(given.key);
    expect(await listening(given.url)).toBe(false);
    for (const pid of servers) expect(isAlive(pid)).toBe(false);
  });

  it("runs the tool on the terminal, and leaves Ctrl-C to it: toolbridge waits for it to exit and passes its code on", { timeout: 120_000 }, async () => {
    upstream = await startModel({ replies: [] });
    const bin = binDir("claude", { text: STAND_IN });
    term = await Tmux.start([process.execPath, CLI, "launch", "claude", ...MODEL_FLAGS()], {
      cwd: home,
      env: { HOME: home, XDG_CONFIG_HOME: home, NO_COLOR: "1", PATH: [bin, dirname(process.execPath), "/usr/bin", "/bin"].join(":"), STAND_IN_EXIT: "wait" },
    });
    await term.waitFor(/ready \(terminal: true\)/);
    await term.press("C-c");
    expect(await term.exitCode()).toBe(100);
    expect(await term.history()).toContain("got SIGINT");
  });

  it("runs real Claude Code interactively on the terminal: the question typed, the hub's multiply run inside, Ctrl-C twice ends it and toolbridge", { timeout: 120_000 }, async () => {
    // Claude Code also asks on the side (titles, topics): those get a plain answer; the question gets the call, then the answer.
    upstream = await startModel({
      respond: (body) => {
        const last = body.messages.at(-1) as { role: string; content?: unknown };
        // 42 only if the math server's answer came back.
        if (last.role === "tool") return { text: String(last.content).includes('"result":42') ? "6 times 7 is 42." : "the tool failed" };
        const offered = ((body as { tools?: { function: { name: string } }[] }).tools ?? []).map((tool) => tool.function.name);
        return offered.includes("multiply") && JSON.stringify(last).includes("What is 6 times 7?") ? { toolCalls: [{ name: "multiply", arguments: { a: 6, b: 7 } }] } : { text: "ok" };
      },
    });
    const bin = binDir("claude", { target: CLAUDE });
    // As after Claude Code's first run: onboarding done, this directory trusted.
    writeFileSync(join(home, ".claude.json"), JSON.stringify({ hasCompletedOnboarding: true, projects: { [home]: { hasTrustDialogAccepted: true } } }));
    term = await Tmux.start([process.execPath, CLI, "launch", "claude", ...MODEL_FLAGS()], {
      cwd: home,
      columns: 120,
      rows: 40,
      env: { HOME: home, XDG_CONFIG_HOME: home, TERM: "xterm-256color", PATH: [bin, dirname(process.execPath), "/usr/bin", "/bin"].join(":"), CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1" },
    });
    const toolbridge = await term.pid();
    // Its banner names the model it was pointed at.
    await term.waitFor(new RegExp(`${DEFAULT_VLLM_MODEL.replace(/[/.]/g, "\\$&")}`));
    await term.waitFor(/❯/);
    await expect.poll(() => childPids(toolbridge).length, { timeout: 30_000 }).toBeGreaterThan(1);
    const started = childPids(toolbridge);
    await term.type("What is 6 times 7?");
    await term.press("Enter");
    await term.waitFor(/6 times 7 is 42\./);
    await term.press("C-c");
    await term.waitFor(/again to exit/i);
    await term.press("C-c");
    expect(await term.exitCode()).toBe(0);
    for (const pid of started) expect(isAlive(pid)).toBe(false);
  });

  it("on SIGTERM asks the tool to stop too, and waits for it", { timeout: 120_000 }, async () => {
    upstream = await startModel({ replies: [] });
    const run = launch(["claude", ...MODEL_FLAGS()], binDir("claude", { text: STAND_IN }), { STAND_IN_EXIT: "wait" });
    await expect.poll(run.stdout, { timeout: 60_000 }).toContain("ready (terminal: false)");
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(100);
    expect(run.stdout()).toContain("got SIGTERM");
  });

  it.runIf(process.platform === "linux" && existsSync("/usr/bin/perl"))("ends the tool when toolbridge is killed outright (SIGKILL runs no handler)", { timeout: 120_000 }, async () => {
    upstream = await startModel({ replies: [] });
    const run = launch(["claude", ...MODEL_FLAGS()], binDir("claude", { text: STAND_IN }), { STAND_IN_EXIT: "wait" });
    await expect.poll(run.stdout, { timeout: 60_000 }).toContain("ready (terminal: false)");
    const tool = JSON.parse(run.stdout().split("\n")[0] as string).pid as number;
    run.child.kill("SIGKILL");
    await run.exited;
    await expect.poll(() => isAlive(tool), { timeout: 30_000 }).toBe(false);
    expect(run.stdout()).toContain("got SIGTERM");
  });

  it("says in one line how to install a tool that is not on PATH, before starting anything", async () => {
    // Without --model the gateway would ask the model server which model it serves.
    upstream = await startModel({ replies: [] });
    const empty = mkdtempSync(join(home, "bin-"));
    for (const [tool, install] of [
      ["claude", "npm install -g @anthropic-ai/claude-code"],
      ["codex", "npm install -g @openai/codex"],
    ] as const) {
      const run = launch([tool, "--config", config, "--base-url", upstream.url], empty);
      expect(await run.exited).toBe(2);
      expect(run.stderr()).toBe(`toolbridge: ${tool} (${tool === "claude" ? "Claude Code" : "Codex CLI"}) is not on PATH: install it with ${install}\n`);
    }
    expect(upstream.requests).toEqual([]);
  }, 60_000);
});
