import type { ChatModel } from "../../llm/types.js";
import { Agent } from "../agent.js";
import { ApprovalPolicy } from "../approval.js";
import type { ToolHost } from "../tool-host.js";
import { PROBED_MODES, type ProbedMode, type ToolCallingMiddlewares } from "../tool-mode.js";
import { EvalToolHost, toolsetFilter } from "./eval-host.js";
import { judgeTurn, type CallCounts, type TaskVerdict } from "./judge.js";
import type { EvalTask, TaskSet } from "./task-set.js";

/** One mode's figures over the task set. */
export interface ModeResult extends CallCounts {
  mode: ProbedMode;
  tasks: number;
  right: number;
  /** Turns that failed or timed out (they count as not right). */
  errors: number;
  /** Wall time of the mode's run, tasks in parallel. */
  seconds: number;
  /** Why the mode was not run, or why its figures do not measure it (the server refused `strict`). */
  detail?: string;
  verdicts: TaskVerdict[];
}

export interface EvalOptions {
  model: ChatModel;
  /** The hub of the bundled servers (time and math); the task file's decoys are added to it. */
  host: ToolHost;
  middlewares: ToolCallingMiddlewares;
  taskSet: TaskSet;
  modes: readonly ProbedMode[];
  /** Tasks run at once within a mode (default 4). */
  concurrency?: number;
  /** How long one task (all its model requests and tool calls) may take (default 120 s). */
  taskTimeoutMs?: number;
  signal?: AbortSignal;
  /** After each task: how far the run is. */
  onProgress?: (progress: { mode: ProbedMode; done: number; total: number }) => void;
}

export const DEFAULT_EVAL_CONCURRENCY = 4;
export const MAX_EVAL_CONCURRENCY = 64;
export const EVAL_TASK_TIMEOUT_MS = 120_000;
/** Rounds of tool calls a task may take: the longest chain is three calls, a search may come first, and one retry. */
const EVAL_MAX_ITERATIONS = 6;

/**
 * Runs every task in each mode, one mode after the other, the tasks of a mode `concurrency`
 * at a time, each a fresh agent at temperature 0 whose tools all run unasked (the bundled
 * servers only read; decoys never run). Bounded: tasks × modes turns, each of at most
 * EVAL_MAX_ITERATIONS requests and `taskTimeoutMs`.
 */
export async function runEval(options: EvalOptions): Promise<ModeResult[]> {
  const host = new EvalToolHost(options.host, options.taskSet.decoys);
  const results: ModeResult[] = [];
  for (const mode of options.modes) {
    if (options.signal?.aborted) break;
    if (mode === "native-strict" && options.model.strictTools === undefined) {
      results.push({ ...emptyResult(mode, options.taskSet.tasks.length), detail: `not run: ${options.model.provider} has no strict tool calls` });
      continue;
    }
    results.push(await runMode(mode, host, options));
  }
  return results;
}

async function runMode(mode: ProbedMode, host: ToolHost, options: EvalOptions): Promise<ModeResult> {
  const tasks = options.taskSet.tasks;
  const verdicts: TaskVerdict[] = new Array(tasks.length);
  const concurrency = Math.min(Math.max(1, options.concurrency ?? DEFAULT_EVAL_CONCURRENCY), MAX_EVAL_CONCURRENCY, tasks.length);
  const started = performance.now();
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < tasks.length && !options.signal?.aborted) {
      const index = next++;
      verdicts[index] = await runTask(tasks[index] as EvalTask, mode, host, options);
      options.onProgress?.({ mode, done: ++done, total: tasks.length });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const finished = verdicts.filter((verdict): verdict is TaskVerdict => verdict !== undefined);
  const result: ModeResult = { ...emptyResult(mode, tasks.length), seconds: (performance.now() - started) / 1000, verdicts: finished };
  for (const verdict of finished) {
    if (verdict.right) result.right++;
    if (verdict.error) result.errors++;
    result.calls += verdict.calls;
    result.validCalls += verdict.validCalls;
    result.wrongTool += verdict.wrongTool;
    result.wrongArguments += verdict.wrongArguments;
    result.falseCalls += verdict.falseCalls;
    result.missed += verdict.missed;
    result.tokens += verdict.tokens;
  }
  // The adapter drops `strict` once the server refuses it: what ran was native calls.
  if (mode === "native-strict" && options.model.strictTools === "refused") result.detail = "the server refuses strict tool definitions: these are native calls";
  return result;
}

async function runTask(task: EvalTask, mode: ProbedMode, host: ToolHost, options: EvalOptions): Promise<TaskVerdict> {
  const timeout = AbortSignal.timeout(options.taskTimeoutMs ?? EVAL_TASK_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const agent = new Agent({
    model: options.model,
    tools: host,
    toolFilter: toolsetFilter(task.tools),
    toolMode: "auto",
    probedMode: mode,
    toolCalling: options.middlewares,
    approval: { policy: new ApprovalPolicy({ mode: "all" }) },
    toolSearch: { mode: task.tools === "all+decoys" ? "always" : "off" },
    maxIterations: EVAL_MAX_ITERATIONS,
    temperature: 0,
  });
  let switched = false;
  // The agent ends a turn that fails as "failed" (it does not throw): the verdict says why.
  const turn = await agent.send(task.prompt, { signal, onEvent: (event) => void (event.type === "notice" && event.code === "prompt-mode" && (switched = true)) });
  const verdict = judgeTurn(task, turn);
  if (timeout.aborted && !options.signal?.aborted) return { ...verdict, right: false, error: true, why: `no answer in ${(options.taskTimeoutMs ?? EVAL_TASK_TIMEOUT_MS) / 1000} s` };
  // In a native mode the agent moves to prompt mode when the server refuses tools: that task did not measure the mode.
  if (switched && mode !== "prompt") return { ...verdict, right: false, why: "the server refused native tools (the turn moved to prompt mode)" };
  return verdict;
}

function emptyResult(mode: ProbedMode, tasks: number): ModeResult {
  return { mode, tasks, right: 0, calls: 0, validCalls: 0, wrongTool: 0, wrongArguments: 0, falseCalls: 0, missed: 0, errors: 0, tokens: 0, seconds: 0, verdicts: [] };
}

/** The mode with the most tasks right (on a tie, the first of PROBED_MODES); undefined when none got any right. */
export function bestEvalMode(results: readonly Pick<ModeResult, "mode" | "right">[]): ProbedMode | undefined {
  let best: Pick<ModeResult, "mode" | "right"> | undefined;
  for (const mode of PROBED_MODES) {
    const result = results.find((row) => row.mode === mode);
    if (result && result.right > 0 && (!best || result.right > best.right)) best = result;
  }
  return best?.mode;
}
