import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { processesIn } from "../support/processes.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(__dirname, "..", "..");
const CLI = join(ROOT, "dist", "cli", "main.js");
const EVERYTHING = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
const FILESYSTEM = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

let work: string;
let home: string;

/**
 * Every CLI run gets its own working directory; servers inherit it, so any process
 * still running there after the CLI exits is an orphan.
 */
function freshDir(): string {
  return mkdtempSync(join(work, "run-"));
}

function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, ...extra };
  for (const name of ["XDG_CONFIG_HOME", "FORCE_COLOR", "NO_COLOR", "TOOLBRIDGE_DEBUG"]) if (!(name in extra)) delete env[name];
  return env;
}

/** Runs `toolbridge ARGS` to the end and checks it left no server behind. */
async function cli(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<Run> {
  const cwd = options.cwd ?? freshDir();
  const run = await new Promise<Run>((done) => {
    execFile(process.execPath, [CLI, ...args], { cwd, env: cliEnv(options.env), timeout: 60_000 }, (error, stdout, stderr) => {
      const failure = error as (Error & { code?: number | string; signal?: NodeJS.Signals }) | null;
      done({ code: typeof failure?.code === "number" ? failure.code : failure ? null : 0, signal: failure?.signal ?? null, stdout, stderr });
    });
  });
  expect(processesIn(cwd), `processes left in ${cwd}`).toEqual([]);
  return run;
}

function writeConfig(name: string, config: unknown): string {
  const file = join(work, name);
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

const everythingServer = { command: process.execPath, args: [EVERYTHING, "stdio"] };
let everythingConfig: string;
let mixedConfig: string;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  work = mkdtempSync(join(tmpdir(), "toolbridge-cli-"));
  home = mkdtempSync(join(work, "home-"));
  everythingConfig = writeConfig("everything.json", { mcpServers: { everything: everythingServer } });
  mixedConfig = writeConfig("mixed.json", {
    mcpServers: {
      everything: everythingServer,
      missing: { command: join(work, "no-such-server") },
      crashes: { command: process.execPath, args: ["-e", "process.stderr.write('fatal: API_KEY is not set\\n'); process.exit(3)"] },
      off: { command: "whatever", disabled: true },
    },
  });
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** No stack traces, no multi-line noise: one `toolbridge: ...` line. */
function expectOneErrorLine(run: Run): string {
  const lines = run.stderr.split("\n").filter((line) => line !== "");
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^toolbridge: /);
  return lines[0]!;
}

describe("toolbridge --help and --version", () => {
  it("lists every hub command in --help", async () => {
    const run = await cli(["--help"]);
    expect(run.code).toBe(0);
    for (const command of ["servers", "tools", "call", "resources", "read", "prompts", "prompt"]) expect(run.stdout).toMatch(new RegExp(`^  ${command}\\b`, "m"));
  });

  it("documents --config and --json on a command's --help", async () => {
    const run = await cli(["tools", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("--config <file>");
    expect(run.stdout).toContain("--server <name>");
    expect(run.stdout).toContain("--json");
  });

  it("prints the package version", async () => {
    const run = await cli(["--version"]);
    expect(run).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });
});

describe("with no config file: the bundled time and math servers", () => {
  it("lists their tools in a table, without colour when not on a terminal", async () => {
    const run = await cli(["tools"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/^NAME\s+SERVER\s+DESCRIPTION\n/);
    expect(run.stdout).toMatch(/^get-date\s+time\s+Get the current date/m);
    expect(run.stdout).toMatch(/^batch_calculate\s+math\s/m);
    expect(run.stdout).not.toContain("\x1b[");
  });

  it("prints the tools with their schemas as JSON", async () => {
    const run = await cli(["tools", "--json"]);
    expect(run.code).toBe(0);
    const tools = JSON.parse(run.stdout) as { name: string; server: string; inputSchema: { properties: Record<string, { enum?: string[] }> } }[];
    const getDate = tools.find((tool) => tool.name === "get-date");
    expect(getDate?.server).toBe("time");
    expect(getDate?.inputSchema.properties.format?.enum).toEqual(["iso", "locale", "date-only", "time-only", "timestamp"]);
    expect(tools.map((tool) => tool.name)).toContain("square_root");
  });

  it("calls get-date with JSON arguments", async () => {
    const before = Date.now();
    const run = await cli(["call", "get-date", '{"format":"iso"}']);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\n$/);
    expect(Date.parse(run.stdout.trim())).toBeGreaterThanOrEqual(before - 1000);
  });

  it("accepts the qualified server__tool name", async () => {
    const run = await cli(["call", "time__get-date", '{"format":"timestamp"}']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d{13}$/);
  });

  it("prints structured content as indented JSON", async () => {
    const run = await cli(["call", "multiply", '{"a": 6, "b": 5}']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('    "result": 30,');
    expect(run.stdout).toContain('"formatted": "6 × 5 = 30"');
  });

  it("exits 1 and prints the tool's error on stderr when the tool reports an error", async () => {
    const run = await cli(["call", "get-date", '{"timezone": "Mars/Olympus_Mons"}']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^toolbridge: tool "get-date" reported an error:\n/);
    expect(run.stderr).toContain("Mars/Olympus_Mons");
  });

  it("keeps a tool error's exit code with --json, printing the whole result", async () => {
    const run = await cli(["call", "divide", '{"a": 1, "b": 0}', "--json"]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ isError: true });
  });

  it("names the tools there are when the tool is unknown, and exits 2 as `tools NAME` does", async () => {
    const run = await cli(["call", "get-weather"]);
    expect(run.code).toBe(2);
    expect(expectOneErrorLine(run)).toMatch(/^toolbridge: unknown tool "get-weather"; tools: get-date, add, /);
  });

  it("prints a stack trace only with TOOLBRIDGE_DEBUG", async () => {
    const run = await cli(["call", "add", "{"], { env: { TOOLBRIDGE_DEBUG: "1" } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^toolbridge: JSON_ARGS is not valid JSON at column 2: unexpected end of file/);
    expect(run.stderr).toMatch(/\n\s+at /);
  });

  it("reports JSON_ARGS that are not JSON in one line naming the column, before starting any server", async () => {
    const run = await cli(["call", "add", '{"a": 1, "b": 2,}']);
    expect(run.code).toBe(2);
    expect(expectOneErrorLine(run)).toBe(`toolbridge: JSON_ARGS is not valid JSON at column 16: trailing comma before '}' (got "{\\"a\\": 1, \\"b\\": 2,}")`);
  });

  it("rejects JSON_ARGS that are not an object", async () => {
    const run = await cli(["call", "add", "[1, 2]"]);
    expect(run.code).toBe(2);
    expect(expectOneErrorLine(run)).toBe(`toolbridge: JSON_ARGS must be a JSON object such as '{"name": "value"}', got an array`);
  });
});

describe("config errors", () => {
  it("reports a bad config file in one line naming the file and the JSON path", async () => {
    const file = writeConfig("bad.json", { mcpServers: { github: { command: "npx", args: ["-y", 42] } } });
    const run = await cli(["tools", "--config", file]);
    expect(run.code).toBe(2);
    expect(expectOneErrorLine(run)).toBe(`toolbridge: ${file}: mcpServers.github.args[1]: expected a string, got the number 42`);
  });

  it("reports invalid JSON with its line and column", async () => {
    const file = join(work, "broken.json");
    writeFileSync(file, '{\n  "mcpServers": {\n    "a": { "command": "x" },\n  }\n}\n');
    const run = await cli(["servers", "-c", file]);
    expect(run.code).toBe(2);
    expect(expectOneErrorLine(run)).toBe(`toolbridge: ${file}:3:28: invalid JSON: trailing comma before '}'`);
  });

  it("reports a --config file that does not exist", async () => {
    const dir = freshDir();
    const run = await cli(["tools", "--config", "nope.json"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(expectOneErrorLine(run)).toBe(`toolbridge: ${join(dir, "nope.json")}: no such file`);
  });

  it("reads ./toolbridge.json from the working directory", async () => {
    const dir = freshDir();
    writeFileSync(join(dir, "toolbridge.json"), JSON.stringify({ mcpServers: { only: { command: join(work, "absent-binary") } } }));
    const run = await cli(["servers"], { cwd: dir });
    // Its one server failed: the table shows it, and the exit code says so.
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^only\s+stdio\s+failed\s/m);
    expect(run.stderr).toBe(`config: ${join(dir, "toolbridge.json")}\n`);
  });
});

describe("against @modelcontextprotocol/server-everything over stdio", () => {
  it("shows a table of servers with the broken ones beside the good one", async () => {
    const run = await cli(["servers", "--config", mixedConfig]);
    expect(run.code).toBe(0);
    // The table and what follows it report the failures; stderr only names the config file.
    expect(run.stderr).toBe(`config: ${mixedConfig}\n`);
    const [table, ...failures] = run.stdout.trimEnd().split("\n\n");
    const lines = table!.split("\n");
    expect(lines[0]).toMatch(/^NAME\s+TRANSPORT\s+STATUS\s+TOOLS\s+RESOURCES\s+PROMPTS\s+PROTOCOL\s+SERVER\s+CONNECT$/);
    expect(lines).toHaveLength(5);
    expect(run.stdout).toMatch(/^everything\s+stdio\s+connected\s+\d+\s+\d+\s+\d+\s+2025-11-25\s+mcp-servers\/everything \S+\s+\d+ ms$/m);
    expect(run.stdout).toMatch(/^missing\s+stdio\s+failed\s+-\s+-\s+-\s+-$/m);
    expect(run.stdout).toMatch(/^crashes\s+stdio\s+failed\s/m);
    expect(run.stdout).toMatch(/^off\s+stdio\s+disabled\s/m);
    expect(failures[0]).toMatch(/^missing: command not found/);
    expect(failures[1]).toMatch(/^crashes: .*\n  stderr:\n    fatal: API_KEY is not set$/);
  });

  it("prints the server states as JSON", async () => {
    const run = await cli(["servers", "--json", "-c", mixedConfig]);
    const states = JSON.parse(run.stdout) as { name: string; status: string; toolCount: number }[];
    expect(states.map((s) => [s.name, s.status])).toEqual([
      ["everything", "connected"],
      ["missing", "failed"],
      ["crashes", "failed"],
      ["off", "disabled"],
    ]);
    expect(states[0]!.toolCount).toBeGreaterThan(5);
  });

  it("warns about each failed server in one line and still lists the tools of the others", async () => {
    const run = await cli(["tools", "-c", mixedConfig]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^get-sum\s+everything\s/m);
    const warnings = run.stderr.trimEnd().split("\n");
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^toolbridge: server "missing" failed to start: .*command not found/);
    expect(warnings[1]).toMatch(/^toolbridge: server "crashes" failed to start: .*fatal: API_KEY is not set/);
  });

  it("fails when the one server asked for with --server failed", async () => {
    const run = await cli(["tools", "--server", "crashes", "-c", mixedConfig]);
    expect(run.code).toBe(1);
    expect(expectOneErrorLine(run)).toMatch(/^toolbridge: server "crashes" failed to start: .*API_KEY/);
  });

  it("names the configured servers when --server names none of them", async () => {
    const run = await cli(["tools", "--server", "nosuch", "-c", mixedConfig]);
    expect(run.code).toBe(2);
    expect(expectOneErrorLine(run)).toBe('toolbridge: unknown server "nosuch"; servers: everything, missing, crashes, off');
  });

  it("calls a tool and prints its text", async () => {
    const run = await cli(["call", "get-sum", '{"a": 2, "b": 40}', "-c", everythingConfig]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("42");
  });

  it("summarises an image instead of printing base64: its type, pixel size and bytes", async () => {
    const run = await cli(["call", "get-tiny-image", "-c", everythingConfig]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\[image image\/png, 20×20 px, [\d.]+ (bytes|KB)\]$/m);
    expect(run.stdout.length).toBeLessThan(400);
  });

  it("prints a server-filesystem file once, not again as its structured content", async () => {
    const dir = freshDir();
    writeFileSync(join(dir, "notes.txt"), "one line of notes\n");
    const config = writeConfig("filesystem.json", { mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM, dir] } } });
    const run = await cli(["call", "read_text_file", JSON.stringify({ path: join(dir, "notes.txt") }), "-c", config]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("one line of notes\n");
  });

  it("prints an embedded resource's text", async () => {
    const run = await cli(["call", "get-resource-reference", '{"resourceType": "Text", "resourceId": 7}', "-c", everythingConfig]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("[resource demo://resource/dynamic/text/7 text/plain]");
    expect(run.stdout).toContain("Resource 7:");
  });

  it("gives up on a call after --timeout milliseconds without progress", async () => {
    const run = await cli(["call", "trigger-long-running-operation", '{"duration": 10, "steps": 1}', "--timeout", "300", "-c", everythingConfig]);
    expect(run.code).toBe(1);
    expect(expectOneErrorLine(run)).toMatch(/timed out after 300 ms/);
  });

  it("refuses arguments that do not match the tool's schema before calling, in one line, exit 2", async () => {
    const run = await cli(["call", "get-sum", '{"a": "two"}', "-c", everythingConfig]);
    expect(run.code).toBe(2);
    expect(expectOneErrorLine(run)).toMatch(/^toolbridge: arguments for "get-sum" do not match its input schema: missing required argument "b"; argument "a" must be number \(see `toolbridge tools get-sum`\)$/);
  });

  it("lists resources and resource templates", async () => {
    const run = await cli(["resources", "-c", everythingConfig]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^URI\s+NAME\s+MIME TYPE\s+SERVER\s+DESCRIPTION$/m);
    expect(run.stdout).toMatch(/^demo:\/\/resource\/static\/document\/\S+\.md\s/m);
    expect(run.stdout).toMatch(/^URI TEMPLATE\s+NAME/m);
    expect(run.stdout).toMatch(/^demo:\/\/resource\/dynamic\/text\/\{resourceId\}\s/m);
  });

  it("reads a resource through a URI template", async () => {
    const run = await cli(["read", "demo://resource/dynamic/text/3", "-c", everythingConfig]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Resource 3: This is a plaintext resource/);
  });

  it("summarises a blob resource, and gives its data with --json", async () => {
    const plain = await cli(["read", "demo://resource/dynamic/blob/3", "-c", everythingConfig]);
    expect(plain.stdout).toMatch(/^\[blob demo:\/\/resource\/dynamic\/blob\/3 \S+, \d+ bytes; use --json for the data\]$/m);
    const json = await cli(["read", "demo://resource/dynamic/blob/3", "--json", "-c", everythingConfig]);
    const result = JSON.parse(json.stdout) as { contents: { blob: string }[] };
    expect(Buffer.from(result.contents[0]!.blob, "base64").toString()).toContain("Resource 3");
  });

  it("says which resource no server lists", async () => {
    const run = await cli(["read", "demo://nowhere", "-c", everythingConfig]);
    expect(run.code).toBe(1);
    expect(expectOneErrorLine(run)).toContain("demo://nowhere");
  });

  it("lists prompts with their arguments, required ones starred", async () => {
    const run = await cli(["prompts", "-c", everythingConfig]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^simple-prompt\s+everything\s/m);
    expect(run.stdout).toMatch(/^args-prompt\s+everything\s+city\*, state\s/m);
  });

  it("gets a prompt with its arguments filled in", async () => {
    const run = await cli(["prompt", "args-prompt", '{"city": "Taipei", "state": "Taiwan"}', "-c", everythingConfig]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^user:\n.*Taipei, Taiwan/m);
  });

  it("explains a prompt asked for without its required argument in one line, exit 2", async () => {
    const run = await cli(["prompt", "args-prompt", "-c", everythingConfig]);
    expect(run.code).toBe(2);
    expect(expectOneErrorLine(run)).toMatch(/^toolbridge: prompt "args-prompt" needs the argument "city"; its arguments \(\* required\): city\*.*; e\.g\. toolbridge prompt args-prompt '\{"city":"\.\.\."\}'$/);
  });

  it("stops every server when interrupted by SIGTERM during a long call", async () => {
    const dir = freshDir();
    const child = spawn(process.execPath, [CLI, "call", "trigger-long-running-operation", '{"duration": 30, "steps": 30}', "-c", everythingConfig], {
      cwd: dir,
      env: cliEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    // Wait until the server runs beside the CLI, then a little for the call to start.
    for (let i = 0; i < 200 && processesIn(dir).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect(processesIn(dir).length).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 500));
    child.kill("SIGTERM");
    expect(await exited).toBe(143);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(processesIn(dir)).toEqual([]);
  });
});
