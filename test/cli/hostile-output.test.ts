import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, type CliRun } from "../support/cli.js";
import { cliTestSetup, writeConfig } from "../support/cli-setup.js";
import type { VllmReply, VllmServer } from "../support/vllm-server.js";

/**
 * Nothing a server or a model writes may command the terminal: a hostile MCP server and
 * a hostile model send window titles, hidden text, cursor moves, bells and C1 controls
 * through every command that prints them, and none of it reaches stdout or stderr raw.
 */

const HOSTILE = join(import.meta.dirname, "../fixtures/servers/hostile-server.mjs");
const PAYLOAD = "\x1b]2;PWNED\x07\x1b[8mhidden\x1b[0m\x1b[2J\x1b[10;10H\x07\x9b31mred\x9d0;PWNED\x07\x1b[?1049h";
// ESC, BEL, every other C0 control but newline and tab, DEL and the C1 range.
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

let dir: string;
let config: string;
let failing: string;
const { startModel } = cliTestSetup("toolbridge-hostile-", (home) => {
  dir = home;
  config = writeConfig(home, "hostile.json", { hostile: { command: process.execPath, args: [HOSTILE], trust: true } });
  failing = writeConfig(home, "failing.json", { hostile: { command: process.execPath, args: [HOSTILE, "--fail"] } });
});

const cli = (args: string[]) => runCli(args, { cwd: dir });

function expectClean(run: CliRun): void {
  for (const [name, text] of [["stdout", run.stdout], ["stderr", run.stderr]] as const) {
    const found = CONTROLS.exec(text);
    expect(found, `${name} has a raw control character ${JSON.stringify(found?.[0])} in ${JSON.stringify(text)}`).toBeNull();
    // The title sequence goes whole, not just its ESC; in JSON it may stay, as data with its ESC escaped.
    expect(text, name).not.toMatch(/(?<!\\u001b)\]2;PWNED/);
  }
}

describe("server text through the hub commands", () => {
  it("tools: names and descriptions", async () => {
    const run = await cli(["tools", "-c", config]);
    expect(run.stdout).toContain("Echoes");
    expectClean(run);
  });

  it("tools --json: the JSON escapes every control", async () => {
    const run = await cli(["tools", "-c", config, "--json"]);
    expect(JSON.parse(run.stdout).find((tool: { name: string }) => tool.name === "echo").description).toBe(`Echoes ${PAYLOAD} back`);
    expectClean(run);
  });

  it("call: a result, an error result and a thrown error", async () => {
    const ok = await cli(["call", "echo", "-c", config]);
    expect(ok.stdout).toContain("result ");
    expect(ok.stdout).toContain("hidden");
    expectClean(ok);
    const failed = await cli(["call", "fails", "-c", config]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("failure");
    expectClean(failed);
    const thrown = await cli(["call", "throws", "-c", config]);
    expect(thrown.code).toBe(1);
    expect(thrown.stderr).toContain("thrown");
    expectClean(thrown);
  });

  it("resources and read", async () => {
    const listed = await cli(["resources", "-c", config]);
    expect(listed.stdout).toContain("hostile://doc");
    expectClean(listed);
    const read = await cli(["read", "hostile://doc", "-c", config]);
    expect(read.stdout).toContain("contents ");
    expectClean(read);
  });

  it("prompts and prompt", async () => {
    const listed = await cli(["prompts", "-c", config]);
    expect(listed.stdout).toContain("greet");
    expectClean(listed);
    const got = await cli(["prompt", "greet", '{"who": "Ann"}', "-c", config]);
    expect(got.stdout).toContain("Hello Ann");
    expectClean(got);
  });

  it("servers, and the warning about a server whose stderr is hostile", async () => {
    const listed = await cli(["servers", "-c", config]);
    expect(listed.stdout).toContain("hostile");
    expectClean(listed);
    const failed = await cli(["servers", "-c", failing]);
    expect(failed.stdout + failed.stderr).toContain("boom");
    expectClean(failed);
    const warned = await cli(["tools", "-c", failing]);
    expect(warned.stderr).toContain("boom");
    expectClean(warned);
  });
});

describe("model and tool text through run", () => {
  const scripted = (replies: VllmReply[]): Promise<VllmServer> => startModel({ replies });

  it("the streamed answer, the tool lines and the tool result", async () => {
    const s = await scripted([
      { reasoning: `thinking ${PAYLOAD}`, toolCalls: [{ name: "echo", arguments: { text: PAYLOAD } }] },
      { text: `answer ${PAYLOAD} done` },
    ]);
    const run = await cli(["run", "go", "--base-url", s.url, "-c", config, "--verbose"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^answer .*hidden.* done\n$/);
    expect(run.stderr).toContain("echo");
    expectClean(run);
  });

  it("a model error quoting hostile text", async () => {
    const s = await scripted([{ kind: "error", status: 400, message: `bad ${PAYLOAD}` }]);
    const run = await cli(["run", "go", "--base-url", s.url, "-c", config]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("bad ");
    expectClean(run);
  });

  it("--output-format json and stream-json", async () => {
    const s = await scripted([{ toolCalls: [{ name: "echo", arguments: {} }] }, { text: `answer ${PAYLOAD}` }, { text: `again ${PAYLOAD}` }]);
    const json = await cli(["run", "go", "--base-url", s.url, "-c", config, "--output-format", "json"]);
    expect(JSON.parse(json.stdout).answer).toBe(`answer ${PAYLOAD}`);
    expectClean(json);
    const stream = await cli(["run", "go", "--base-url", s.url, "-c", config, "--output-format", "stream-json"]);
    const result = stream.stdout.trim().split("\n").map((line) => JSON.parse(line)).at(-1);
    expect(result.result).toBe(`again ${PAYLOAD}`);
    expectClean(stream);
  });
});
