import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledTaskSet } from "../../src/agent/eval/bundled-tasks.js";
import type { TaskSet } from "../../src/agent/eval/task-set.js";
import { runCli } from "../support/cli.js";
import { EVAL_USAGE, evalResponder, plannedSteps, type EvalFault } from "../support/eval-model.js";
import { startVllmServer, type VllmServer } from "../support/vllm-server.js";

/**
 * `toolbridge eval` end to end: the built CLI, the bundled time and math servers, and the
 * scripted vLLM server (TEST INFRASTRUCTURE) answering as a model that is right, or wrong in
 * known ways, so that every figure printed is known in advance.
 */
const bundled = bundledTaskSet();
const TOKENS_PER_REQUEST = EVAL_USAGE.prompt_tokens + EVAL_USAGE.completion_tokens;

/** A small task file from the bundled set, and the one way each of its tasks goes wrong. */
const FAULTS: Record<string, EvalFault | undefined> = {
  "single-001": "wrong-tool",
  "single-003": "wrong-type",
  "no-tool-001": "false-call",
  "single-002": "prose",
  "multi-001": undefined,
  "time-001": undefined,
};
const small: TaskSet = { ...bundled, tasks: bundled.tasks.filter((task) => task.id in FAULTS) };

let home: string;
let state: string;
let right: VllmServer;
let wrong: VllmServer;
let smallFile: string;
const env = () => ({ XDG_STATE_HOME: state });

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "toolbridge-eval-cli-"));
  state = join(home, "state");
  // A config with a server of its own: eval connects the bundled servers only.
  writeFileSync(join(home, "toolbridge.json"), JSON.stringify({ mcpServers: { other: { command: "/nonexistent/server" } } }));
  smallFile = join(home, "small-tasks.json");
  writeFileSync(smallFile, JSON.stringify(small));
  right = await startVllmServer({ respond: evalResponder(bundled) as never });
  wrong = await startVllmServer({ model: "wrong-model", respond: evalResponder(bundled, Object.fromEntries(Object.entries(FAULTS).filter((entry): entry is [string, EvalFault] => entry[1] !== undefined))) as never });
});
afterAll(async () => {
  await Promise.all([right.close(), wrong.close()]);
  rmSync(home, { recursive: true, force: true });
});

interface ModeJson {
  mode: string;
  tasks: number;
  right: number;
  calls: number;
  validCalls: number;
  wrongTool: number;
  wrongArguments: number;
  falseCalls: number;
  missed: number;
  errors: number;
  tokens: number;
  seconds: number;
  failed: Array<{ id: string; why: string }>;
}

function expectedRight(set: TaskSet) {
  const calls = set.tasks.reduce((sum, task) => sum + (task.reference ?? []).flat().length, 0);
  const requests = set.tasks.reduce((sum, task) => sum + plannedSteps(task).length + 1, 0);
  return { tasks: set.tasks.length, right: set.tasks.length, calls, validCalls: calls, wrongTool: 0, wrongArguments: 0, falseCalls: 0, missed: 0, errors: 0, tokens: requests * TOKENS_PER_REQUEST, failed: [], requests };
}

describe("toolbridge eval", () => {
  it("gets every bundled task right with a model that follows each task's reference, in native mode", async () => {
    const from = right.chatRequests.length;
    const result = await runCli(["eval", "--base-url", right.url, "--modes", "native", "--concurrency", "8", "--json"], { cwd: home, env: env() });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as { tasks: number; best: string; modes: ModeJson[] };
    const { requests, ...want } = expectedRight(bundled);
    expect(out.tasks).toBe(240);
    expect(out.best).toBe("native");
    expect(out.modes).toHaveLength(1);
    const { seconds, mode, ...figures } = out.modes[0]!;
    expect(mode).toBe("native");
    expect(figures).toEqual(want);
    expect(seconds).toBeGreaterThanOrEqual(0);
    expect(right.chatRequests.length - from).toBe(requests);
  });

  it("runs all three modes over a spread of --limit tasks and caches tasks right per mode privately", async () => {
    const result = await runCli(["eval", "--base-url", right.url, "--limit", "30", "--json"], { cwd: home, env: env() });
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as { tasks: number; best: string; modes: ModeJson[] };
    const spread: TaskSet = { ...bundled, tasks: Array.from({ length: 30 }, (_, i) => bundled.tasks[i * 8]!) };
    // Every category is in the spread, tool search included.
    expect(new Set(spread.tasks.map((task) => task.category)).size).toBe(8);
    const { requests: _requests, ...want } = expectedRight(spread);
    expect(out.modes.map(({ seconds: _s, mode, ...figures }) => [mode, figures])).toEqual([
      ["native-strict", want],
      ["native", want],
      ["prompt", want],
    ]);
    expect(out.best).toBe("native-strict");
    const file = join(state, "toolbridge", "tool-modes.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const cached = JSON.parse(readFileSync(file, "utf8")).models[`${right.url} Qwen/Qwen3-8B`];
    expect(cached.eval).toEqual(["native-strict", "native", "prompt"].map((mode) => ({ mode, tasks: 30, right: 30 })));
  });

  it("counts each known fault of a wrong model in its own figure", async () => {
    const result = await runCli(["eval", "--base-url", wrong.url, "--tasks", smallFile, "--modes", "native", "--json"], { cwd: home, env: env() });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as { best: string; modes: ModeJson[] };
    const { seconds: _s, ...figures } = out.modes[0]!;
    // Requests: wrong tool 2, wrong type 2, false call 2, prose 1, the right multi-step task 3, the right date 2.
    expect(figures).toEqual({
      mode: "native",
      tasks: 6,
      right: 2,
      calls: 6,
      validCalls: 5,
      wrongTool: 1,
      wrongArguments: 1,
      falseCalls: 1,
      missed: 1,
      errors: 0,
      tokens: 12 * TOKENS_PER_REQUEST,
      failed: [
        { id: "single-001", why: "called subtract, a tool this task does not need" },
        { id: "single-002", why: "no tool was called" },
        { id: "single-003", why: "no call gave 1113238" },
        { id: "no-tool-001", why: "called add though no tool was needed" },
      ],
    });
    expect(out.best).toBe("native");
  });

  it("prints the same figures as a table and as Markdown", async () => {
    const args = ["eval", "--base-url", wrong.url, "--tasks", smallFile, "--modes", "native,prompt"];
    const table = await runCli(args, { cwd: home, env: env() });
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split("\n");
    expect(lines[0]).toBe(`wrong-model at ${wrong.url}, 6 tasks`);
    expect(lines[1]).toMatch(/^MODE\s+RIGHT\s+CALLS VALID\s+WRONG TOOL\s+WRONG ARGS\s+FALSE CALLS\s+MISSED\s+ERRORS\s+TOKENS\s+SECONDS$/);
    for (const [i, mode] of ["native", "prompt"].entries()) {
      expect(lines[2 + i]!.split(/\s+/).slice(0, 9)).toEqual([mode, "2/6", "5/6", "1", "1", "1", "1", "0", String(12 * TOKENS_PER_REQUEST)]);
      expect(lines[2 + i]).toMatch(/\s\d+\.\d$/);
    }
    expect(lines[4]).toBe("best: native (cached; --tool-mode auto follows it)");
    const markdown = await runCli([...args, "--markdown"], { cwd: home, env: env() });
    const rows = markdown.stdout.trim().split("\n");
    expect(rows.slice(0, 4)).toEqual([
      "**wrong-model**",
      "",
      "| mode | right | calls valid | wrong tool | wrong args | false calls | missed | errors | tokens | seconds |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]);
    expect(rows[4]).toMatch(new RegExp(`^\\| native \\| 2/6 \\| 5/6 \\| 1 \\| 1 \\| 1 \\| 1 \\| 0 \\| ${12 * TOKENS_PER_REQUEST} \\| \\d+\\.\\d \\|$`));
    expect(rows[5]).toMatch(/^\| prompt \| 2\/6 \| 5\/6 \| /);
  });

  it("lets --tool-mode auto follow the eval's best mode instead of probing", async () => {
    // The last eval of this model measured prompt mode only: it is the best there is.
    const evalRun = await runCli(["eval", "--base-url", right.url, "--limit", "3", "--modes", "prompt", "--json"], { cwd: home, env: env() });
    expect(JSON.parse(evalRun.stdout).best).toBe("prompt");
    const from = right.chatRequests.length;
    const config = join(home, "bundled-only.json");
    writeFileSync(config, JSON.stringify({}));
    const run = await runCli(["run", "What is the capital of Japan?", "--base-url", right.url, "--tool-mode", "auto", "-c", config], { cwd: home, env: env() });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe("Tokyo.");
    // One request, no probe, and in prompt mode: no native `tools` field.
    const requests = right.chatRequests.slice(from);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.body.tools).toBeUndefined();
  });

  it("refuses a task file that does not fit the schema in one line naming the file and the key", async () => {
    const bad = join(home, "bad-tasks.json");
    writeFileSync(bad, JSON.stringify({ version: 1, tasks: [{ ...small.tasks[0], tools: "everything" }] }));
    const result = await runCli(["eval", "--base-url", wrong.url, "--tasks", bad], { cwd: home, env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(`--tasks: ${bad}: tasks.0.tools: `);
  });

  it("refuses an unknown mode and a concurrency past its bound before connecting anything", async () => {
    const modes = await runCli(["eval", "--base-url", wrong.url, "--modes", "native,telepathy"], { cwd: home, env: env() });
    expect(modes.code).toBe(2);
    expect(modes.stderr.trim()).toBe('toolbridge: --modes: "telepathy" is not one of native-strict, native, prompt');
    const many = await runCli(["eval", "--base-url", wrong.url, "--concurrency", "65"], { cwd: home, env: env() });
    expect(many.code).toBe(2);
    expect(many.stderr.trim()).toBe("toolbridge: --concurrency: 65 is more than 64");
  });
});
