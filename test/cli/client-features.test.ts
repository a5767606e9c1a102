import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { processesIn } from "../support/processes.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startVllmServer, type VllmReply, type VllmServer } from "../support/vllm-server.js";

/**
 * What servers ask of the CLI, end to end with the built binary and server-everything:
 * sampling under --approve, roots from --root and the config, elicitation with nobody to
 * ask, task-backed tools through `call` and through the agent, and the tasks commands.
 */

const ROOT = resolve(__dirname, "..", "..");
const CLI = join(ROOT, "dist", "cli", "main.js");
const EVERYTHING = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let work: string;
let config: string;
let server: VllmServer | undefined;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  work = realpathSync(mkdtempSync(join(tmpdir(), "toolbridge-client-cli-")));
  config = join(work, "toolbridge.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } }));
});

afterEach(async () => {
  await server?.close();
  server = undefined;
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** Runs the CLI in a fresh directory with stdin not a terminal, and checks no server is left there. */
async function cli(args: string[], options: { cwd?: string } = {}): Promise<Run> {
  const cwd = options.cwd ?? mkdtempSync(join(work, "run-"));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: work, XDG_CONFIG_HOME: work, NO_COLOR: "1" };
  const run = await new Promise<Run>((done) => {
    const child = execFile(process.execPath, [CLI, ...args], { cwd, env, timeout: 60_000 }, (error, stdout, stderr) => {
      const failure = error as (Error & { code?: number | string }) | null;
      done({ code: typeof failure?.code === "number" ? failure.code : failure ? null : 0, stdout, stderr });
    });
    child.stdin?.end();
  });
  expect(processesIn(cwd), `processes left in ${cwd}`).toEqual([]);
  return run;
}

async function vllm(replies: VllmReply[]): Promise<VllmServer> {
  server = await startVllmServer({ replies });
  return server;
}

const chatBodies = (s: VllmServer): any[] => s.requests.filter((r) => r.path === "/v1/chat/completions").map((r) => r.body);

describe("sampling from the command line", () => {
  it("call answers trigger-sampling-request with the model of --base-url under --approve all", async () => {
    const s = await vllm([{ text: "Hello from the model." }]);
    const run = await cli(["call", "trigger-sampling-request", '{"prompt":"hi"}', "--approve", "all", "--base-url", s.url, "--config", config]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Hello from the model.");
    expect(JSON.stringify(chatBodies(s)[0].messages)).toContain("hi");
  }, 60_000);

  it("without a terminal and without --approve all, refuses, says so in one stderr line, and the model is not asked", async () => {
    const s = await vllm([]);
    const run = await cli(["call", "trigger-sampling-request", '{"prompt":"hi"}', "--base-url", s.url, "--config", config]);
    expect(run.code).toBe(1);
    expect(run.stderr.split("\n").filter((line) => /asked to use the model; refused: no terminal/.test(line))).toHaveLength(1);
    expect(run.stderr).toContain("User rejected sampling request");
    expect(chatBodies(s)).toEqual([]);
  }, 60_000);

  it("a trusted server samples without --approve", async () => {
    const s = await vllm([{ text: "Trusted answer." }]);
    const trusted = join(work, "trusted.json");
    writeFileSync(trusted, JSON.stringify({ llm: { baseURL: s.url }, mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], trust: true } } }));
    const run = await cli(["call", "trigger-sampling-request", '{"prompt":"hi"}', "--config", trusted]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Trusted answer.");
  }, 60_000);
});

describe("roots from the command line", () => {
  it("offers the current directory by default", async () => {
    const cwd = mkdtempSync(join(work, "run-"));
    const run = await cli(["call", "get-roots-list", "--config", config], { cwd });
    expect(run.stdout).toContain(pathToFileURL(cwd).href);
  }, 60_000);

  it("offers every --root instead, relative ones resolved against the current directory", async () => {
    const cwd = mkdtempSync(join(work, "run-"));
    const run = await cli(["call", "get-roots-list", "--config", config, "--root", "sub", "--root", "/tmp"], { cwd });
    expect(run.stdout).toContain("(2 total)");
    expect(run.stdout).toContain(pathToFileURL(join(cwd, "sub")).href);
    expect(run.stdout).toContain("file:///tmp");
  }, 60_000);

  it("offers the config's roots, relative to the config file", async () => {
    const dir = join(work, "project");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "toolbridge.json");
    writeFileSync(file, JSON.stringify({ roots: ["src"], mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } }));
    const run = await cli(["call", "get-roots-list", "--config", file]);
    expect(run.stdout).toContain(pathToFileURL(join(dir, "src")).href);
  }, 60_000);
});

describe("elicitation with nobody to ask", () => {
  it("declines and says so in one stderr line", async () => {
    const run = await cli(["call", "trigger-elicitation-request", "--config", config]);
    expect(run.stdout).toMatch(/declined/i);
    const lines = run.stderr.split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^toolbridge: server "everything" asked for input .*declined: no terminal to ask on$/);
  }, 60_000);
});

describe("tasks from the command line", () => {
  it("call runs a task-required tool and prints its result", async () => {
    const run = await cli(["call", "simulate-research-query", '{"topic":"tides"}', "--config", config]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("# Research Report: tides");
  }, 60_000);

  it("tools --json keeps a tool's execution", async () => {
    const run = await cli(["tools", "--json", "--config", config]);
    const tools = JSON.parse(run.stdout) as { name: string; execution?: unknown }[];
    expect(tools.find((tool) => tool.name === "simulate-research-query")?.execution).toEqual({ taskSupport: "required" });
  }, 60_000);

  it("task ID names an unknown task in one line", async () => {
    const run = await cli(["task", "no-such-task", "--config", config]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe('toolbridge: no connected server knows a task "no-such-task"');
  }, 60_000);

  it("tasks --json lists what the servers list (none on a fresh server)", async () => {
    const run = await cli(["tasks", "--json", "--config", config]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([]);
  }, 60_000);

  it("the agent calls a task-required tool and the model reads its result", async () => {
    const s = await vllm([{ toolCalls: [{ name: "simulate-research-query", arguments: { topic: "tides" } }] }, { text: "The report is in." }]);
    const run = await cli(["run", "research tides", "--base-url", s.url, "--approve", "all", "--config", config]);
    expect(run.stdout).toBe("The report is in.\n");
    expect(run.code).toBe(0);
    const toolMessage = chatBodies(s)[1].messages.find((m: { role: string }) => m.role === "tool");
    expect(toolMessage.content).toContain("# Research Report: tides");
  }, 60_000);
});
