import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli, type CliRun } from "../support/cli.js";

/** The CLI says what happened, in one line, with the exit code that matches. */

const TOY = join(import.meta.dirname, "../fixtures/servers/toy-server.mjs");
const HOSTILE = join(import.meta.dirname, "../fixtures/servers/hostile-server.mjs");
const V1_RELAYED = join(import.meta.dirname, "../fixtures/servers/v1-relayed-errors.mjs");

let dir: string;
const configs: Record<string, string> = {};

function config(name: string, mcpServers: Record<string, unknown>): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ mcpServers }));
  return file;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbridge-cli-correct-"));
  const toy = (name: string, tools: string) => ({ command: process.execPath, args: [TOY, "--name", name, "--tools", tools] });
  configs.twoToys = config("two-toys", { a: toy("a", "x,greet.user"), b: toy("b", "x") });
  configs.broken = config("broken", { one: { command: join(dir, "missing-1") }, two: { command: join(dir, "missing-2") } });
  configs.hostile = config("hostile", { h: { command: process.execPath, args: [HOSTILE] } });
  configs.v1Relayed = config("v1-relayed", { v1: { command: process.execPath, args: [V1_RELAYED] } });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (args: string[]): Promise<CliRun> => runCli(args, { cwd: dir });

function oneLine(run: CliRun): string {
  const lines = run.stderr.split("\n").filter((line) => line !== "");
  expect(lines, run.stderr).toHaveLength(1);
  return lines[0]!;
}

describe("usage errors", () => {
  it("an unknown option, a missing argument, a bad value: one line, a pointer to --help, exit 2", async () => {
    const unknown = await cli(["tools", "--bogus"]);
    expect(unknown.code).toBe(2);
    expect(oneLine(unknown)).toBe("toolbridge: unknown option '--bogus' (see `toolbridge tools --help`)");
    const missing = await cli(["call"]);
    expect(missing.code).toBe(2);
    expect(oneLine(missing)).toBe("toolbridge: missing required argument 'tool' (see `toolbridge call --help`)");
    const bad = await cli(["call", "x", "--timeout", "soon"]);
    expect(bad.code).toBe(2);
    expect(oneLine(bad)).toMatch(/^toolbridge: option '--timeout <ms>' argument 'soon' is invalid\. .* \(see `toolbridge call --help`\)$/);
    const command = await cli(["nope"]);
    expect(command.code).toBe(2);
    expect(oneLine(command)).toBe("toolbridge: unknown command 'nope' (see `toolbridge --help`)");
    expect(unknown.stdout + missing.stdout + bad.stdout).toBe("");
  });

  it("--help ends with examples of the command, each a command line toolbridge takes", async () => {
    for (const command of [[], ["call"], ["chat"], ["run"], ["mcp", "add"], ["models", "probe"]]) {
      const help = await cli([...command, "--help"]);
      expect(help.code).toBe(0);
      const examples = /\nExamples:\n((?: {2}\$ .*\n)+)\n*$/.exec(help.stdout)?.[1];
      expect(examples, help.stdout).toBeDefined();
      for (const line of examples!.trimEnd().split("\n")) expect(line).toMatch(new RegExp(`^  \\$ (?:.*\\| )?toolbridge ${command.join(" ")}`));
    }
  });

  it("help and --version still print and exit 0", async () => {
    const help = await cli(["run", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--output-format");
    expect(help.stdout).toMatch(/-c, --config <file>/);
  });
});

describe("listings when every server failed", () => {
  it("tools, servers, resources and prompts exit 1", async () => {
    for (const command of ["tools", "servers", "resources", "prompts"]) {
      const run = await cli([command, "-c", configs.broken!]);
      expect(run.code, command).toBe(1);
    }
  });
});

describe("call", () => {
  it("checks the arguments against the tool's input schema before calling, as the agent does", async () => {
    const run = await cli(["call", "add", '{"a": 1}']);
    expect(run.code).toBe(2);
    expect(oneLine(run)).toBe('toolbridge: arguments for "add" do not match its input schema: missing required argument "b" (see `toolbridge tools add`)');
  });

  it("accepts the server's own name of a renamed tool", async () => {
    const run = await cli(["call", "greet.user", "-c", configs.twoToys!]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("a:greet.user\n");
  });

  it("says which names to use for a name two servers offer", async () => {
    const run = await cli(["call", "x", "-c", configs.twoToys!]);
    expect(run.code).toBe(2);
    expect(oneLine(run)).toBe('toolbridge: ambiguous: "x" is offered by 2 servers; call one of a__x, b__x');
    const chosen = await cli(["call", "b__x", "-c", configs.twoToys!]);
    expect(chosen.stdout).toBe("b:x\n");
  });

  it("never repeats an error's prefix", async () => {
    const run = await cli(["call", "throws", "-c", configs.hostile!]);
    expect(run.stderr).toContain("MCP error -32603: thrown");
    expect(run.stderr).not.toMatch(/(MCP error -?\d+: )\1/);
    const prompt = await cli(["prompt", "greet", '{"who": 5}', "-c", configs.hostile!]);
    expect(prompt.stderr).not.toMatch(/(MCP error -?\d+: )\1/);
  });

  it("says an SDK 1.x server's relayed or rewrapped error with its prefix once", async () => {
    const relayed = await cli(["call", "relay", "-c", configs.v1Relayed!]);
    expect(relayed.code).toBe(1);
    expect(relayed.stderr).toBe('toolbridge: tool "relay" reported an error:\nMCP error -32602: Resource mem://missing not found\n');
    const rewrapped = await cli(["call", "rewrap", "-c", configs.v1Relayed!]);
    expect(rewrapped.stderr).toBe('toolbridge: tool "rewrap" reported an error:\nMCP error -32603: the database is locked\n');
    const read = await cli(["read", "v1://locked", "-c", configs.v1Relayed!]);
    expect(oneLine(read)).toBe('toolbridge: resources/read v1://locked on server "v1" failed: MCP error -32603: the database is locked');
  }, 60_000);
});

describe("tools NAME", () => {
  it("shows one tool's arguments readably", async () => {
    const run = await cli(["tools", "get-date"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^get-date \(server time\)\n/);
    expect(run.stdout).toMatch(/^format\s+"iso" \| "locale" \| "date-only" \| "time-only" \| "timestamp"\s/m);
    expect(run.stdout).toMatch(/^timezone\s+string\s/m);
    expect(run.stdout).toContain("read-only");
    const json = await cli(["tools", "get-date", "--json"]);
    expect(JSON.parse(json.stdout).inputSchema.properties.timezone.type).toBe("string");
  });

  it("an unknown one is a usage error", async () => {
    const run = await cli(["tools", "nosuch"]);
    expect(run.code).toBe(2);
    expect(oneLine(run)).toBe('toolbridge: unknown tool "nosuch"; `toolbridge tools` lists them');
  });
});

describe("prompt", () => {
  it("explains a missing argument from the prompt's own list, with an example, exit 2", async () => {
    const run = await cli(["prompt", "greet", "-c", configs.hostile!]);
    expect(run.code).toBe(2);
    expect(oneLine(run)).toBe(`toolbridge: prompt "greet" needs the argument "who"; its arguments (* required): who*; e.g. toolbridge prompt greet '{"who":"..."}'`);
  });
});

describe("serve --http", () => {
  it("a port in use: one line, exit 1", async () => {
    const busy = await listening((_req, res) => res.end());
    const port = (busy.address() as { port: number }).port;
    const run = await cli(["serve", "time", "--http", String(port)]);
    busy.close();
    expect(run.code).toBe(1);
    expect(oneLine(run)).toBe(`toolbridge: cannot listen on 127.0.0.1:${port}: the port is in use (choose another, or 0 for a free one)`);
  });

  it("an address not on this machine: one line, exit 1", async () => {
    const run = await cli(["serve", "time", "--http", "192.0.2.1:0", "--token", "a-token-for-the-test"]);
    expect(run.code).toBe(1);
    // Off loopback a token is needed, and the warning that says so comes first.
    expect(run.stderr.trim().split("\n").at(-1)).toBe("toolbridge: cannot listen on 192.0.2.1:0: 192.0.2.1 is not an address of this machine");
  });
});

describe("config names that match nothing", () => {
  it("warns about includeTools, excludeTools and tools.enabled names no tool has, and a misspelt key", async () => {
    const file = join(dir, "typos.json");
    const time = { command: process.execPath, args: [CLI, "serve", "time"] };
    writeFileSync(file, JSON.stringify({ mcpServers: { time: { ...time, includeTools: ["get-date", "get-dat"], excludeTool: ["x"] } }, tools: { enabled: ["get-date", "nope"] } }));
    const run = await cli(["tools", "-c", file]);
    expect(run.code).toBe(0);
    expect(run.stderr.trimEnd().split("\n")).toEqual([
      `toolbridge: ${file}: mcpServers.time.excludeTool: unknown key (did you mean "excludeTools"?)`,
      `toolbridge: ${file}: mcpServers.time.includeTools: "get-dat" matches no tool of "time"`,
      `toolbridge: ${file}: tools.enabled: "nope" matches no tool`,
    ]);
  });
});

describe("model servers that are not one", () => {
  it("a server answering HTML is named as such, not printed", async () => {
    const page = `<!DOCTYPE html><html><body>${"<p>welcome</p>".repeat(200)}</body></html>`;
    const web = await listening((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(page);
    });
    const url = `http://127.0.0.1:${(web.address() as { port: number }).port}/v1`;
    const listed = await cli(["run", "hi", "--base-url", url]);
    const named = await cli(["run", "hi", "--base-url", url, "--model", "m"]);
    web.close();
    expect(listed.code).toBe(1);
    expect(oneLine(listed)).toBe(`toolbridge: not an OpenAI-compatible API (got text/html from ${url}); check the base URL (--base-url)`);
    expect(named.code).toBe(1);
    expect(oneLine(named)).toMatch(/^toolbridge: not an OpenAI-compatible API \(got text\/html from /);
  });

  it("with no server found, says how to name one with --base-url", async () => {
    const run = await runCli(["run", "hi"], { cwd: dir, env: { OPENAI_BASE_URL: "" } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("--base-url URL");
  });
});

function listening(handler: Parameters<typeof createServer>[1]): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer(handler!);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}
