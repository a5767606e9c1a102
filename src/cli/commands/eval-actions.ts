import { bundledTaskSet } from "../../agent/eval/bundled-tasks.js";
import { bestEvalMode, DEFAULT_EVAL_CONCURRENCY, MAX_EVAL_CONCURRENCY, runEval, type ModeResult } from "../../agent/eval/runner.js";
import { parseTaskSet, TaskSetError, type TaskSet } from "../../agent/eval/task-set.js";
import { toolCallingFor } from "../../agent/tool-calling.js";
import { PROBED_MODES, type ProbedMode } from "../../agent/tool-mode.js";
import { defaultServers } from "../../config/bundled-servers.js";
import { ConfigError } from "../../config/errors.js";
import { loadConfig } from "../../config/load.js";
import { readConfigText } from "../../config/read-file.js";
import { redactUrl } from "../../config/redact.js";
import { createChatModel } from "../../llm/create-model.js";
import { Hub } from "../../mcp/hub.js";
import { applyFlags } from "../chat/session.js";
import { progressBar } from "../download-progress.js";
import { ReportedFailure, UsageError, warn } from "../errors.js";
import { colorsFor } from "../render/colors.js";
import { renderTable, type Column } from "../render/table.js";
import { ToolModeCache } from "../../host/tool-mode-cache.js";

export interface EvalFlags {
  baseUrl?: string;
  model?: string;
  provider?: string;
  config?: string;
  modes?: string;
  tasks?: string;
  concurrency?: string;
  limit?: string;
  json?: boolean;
  markdown?: boolean;
}

/** Loads the tasks, connects the bundled servers, runs every mode, prints the figures and caches them for --tool-mode auto. */
export async function runEvalCommand(flags: EvalFlags): Promise<void> {
  const env = process.env;
  if (flags.json && flags.markdown) throw new UsageError("--json and --markdown: choose one");
  const modes = parseModes(flags.modes);
  const concurrency = flags.concurrency === undefined ? DEFAULT_EVAL_CONCURRENCY : wholeNumber("--concurrency", flags.concurrency, MAX_EVAL_CONCURRENCY);
  const taskSet = limitTasks(loadTasks(flags.tasks), flags.limit === undefined ? undefined : wholeNumber("--limit", flags.limit));
  const loaded = loadConfig({ file: flags.config, cwd: process.cwd(), env });
  for (const warning of loaded.warnings) warn(`${loaded.path}: ${warning}`, env);
  const llm = applyFlags(loaded.config.llm ?? {}, flags);
  const cache = ToolModeCache.open(env);
  const model = await createChatModel(llm, env, cache ? { strictMemory: cache } : {});
  // Only the bundled servers, whatever the config lists: the tasks are about their tools.
  const hub = await Hub.connect(defaultServers());
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const progress = progressLine(process.stderr);
  let results: ModeResult[];
  try {
    const missing = ["time", "math"].filter((name) => !hub.servers().some((server) => server.name === name && server.status === "connected"));
    if (missing.length > 0) throw new UsageError(`eval: the bundled ${missing.join(" and ")} server${missing.length > 1 ? "s" : ""} did not start (see the servers log)`);
    results = await runEval({
      model,
      host: hub,
      middlewares: toolCallingFor(llm.promptFormat),
      taskSet,
      modes,
      concurrency,
      ...(llm.requestTimeoutMs !== undefined ? { taskTimeoutMs: llm.requestTimeoutMs * 3 } : {}),
      signal: stop.signal,
      ...(progress ? { onProgress: progress } : {}),
    });
  } finally {
    progress?.({ mode: modes[0] ?? "native", done: 1, total: 1, clear: true });
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await hub.close();
  }
  if (stop.signal.aborted) throw new ReportedFailure(130);
  const best = bestEvalMode(results);
  const server = model.baseURL ?? model.provider;
  cache?.saveEval(server, model.modelId, results);
  const where = model.baseURL ? redactUrl(model.baseURL) : model.provider;
  if (flags.json) {
    const modesJson = results.map(({ verdicts, ...figures }) => ({ ...figures, seconds: round(figures.seconds), failed: verdicts.filter((v) => !v.right).map(({ id, why }) => ({ id, why })) }));
    process.stdout.write(`${JSON.stringify({ model: model.modelId, server: where, tasks: taskSet.tasks.length, best: best ?? null, modes: modesJson }, null, 2)}\n`);
    return;
  }
  if (flags.markdown) {
    process.stdout.write(markdownTable(model.modelId, results));
    return;
  }
  const c = colorsFor(process.stdout, env);
  process.stdout.write(`${c.bold(model.modelId)} ${c.dim(`at ${where}, ${taskSet.tasks.length} tasks`)}\n`);
  const columns: Column<ModeResult>[] = FIGURES.map(([header, value], i) => ({ header, value, ...(i > 0 ? { align: "right" as const } : {}) }));
  if (results.some((row) => row.detail)) columns.push({ header: "DETAIL", value: (row) => row.detail ?? "", shrink: true });
  process.stdout.write(renderTable(columns, results, { colors: c, ...(process.stdout.isTTY && process.stdout.columns ? { maxWidth: process.stdout.columns } : {}) }));
  process.stdout.write(best ? `best: ${best}${cache ? " (cached; --tool-mode auto follows it)" : ""}\n` : "no mode got a task right\n");
}

/** The figures per mode, in the order the table and the Markdown show them. */
const FIGURES: Array<[string, (row: ModeResult) => string]> = [
  ["MODE", (row) => row.mode],
  ["RIGHT", (row) => `${row.right}/${row.tasks}`],
  ["CALLS VALID", (row) => `${row.validCalls}/${row.calls}`],
  ["WRONG TOOL", (row) => String(row.wrongTool)],
  ["WRONG ARGS", (row) => String(row.wrongArguments)],
  ["FALSE CALLS", (row) => String(row.falseCalls)],
  ["MISSED", (row) => String(row.missed)],
  ["ERRORS", (row) => String(row.errors)],
  ["TOKENS", (row) => String(row.tokens)],
  ["SECONDS", (row) => round(row.seconds).toFixed(1)],
];

function markdownTable(model: string, results: readonly ModeResult[]): string {
  const header = FIGURES.map(([name]) => name.toLowerCase());
  const lines = [`**${model}**`, "", `| ${header.join(" | ")} |`, `|${header.map((_, i) => (i === 0 ? " --- " : " ---: ")).join("|")}|`];
  // A model's name or a detail could hold a pipe: it would open a cell.
  for (const row of results) lines.push(`| ${FIGURES.map(([, value]) => value(row).replace(/\|/g, "\\|")).join(" | ")} |`);
  return `${lines.join("\n")}\n`;
}

function round(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}

function parseModes(flag: string | undefined): ProbedMode[] {
  if (flag === undefined) return [...PROBED_MODES];
  const modes = flag.split(",").map((mode) => mode.trim()).filter(Boolean);
  const unknown = modes.find((mode) => !(PROBED_MODES as readonly string[]).includes(mode));
  if (unknown !== undefined || modes.length === 0) throw new UsageError(`--modes: "${unknown ?? flag}" is not one of ${PROBED_MODES.join(", ")}`);
  return PROBED_MODES.filter((mode) => modes.includes(mode));
}

function wholeNumber(flag: string, text: string, max?: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag}: "${text}" is not a whole number of 1 or more`);
  if (max !== undefined && n > max) throw new UsageError(`${flag}: ${n} is more than ${max}`);
  return n;
}

function loadTasks(file: string | undefined): TaskSet {
  if (file === undefined) return bundledTaskSet();
  let data: unknown;
  try {
    data = JSON.parse(readConfigText(file));
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(`--tasks: ${error.message}`);
    throw new UsageError(`--tasks: ${file}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  try {
    return parseTaskSet(data, file);
  } catch (error) {
    if (error instanceof TaskSetError) throw new UsageError(`--tasks: ${error.message}`);
    throw error;
  }
}

/** `limit` tasks taken at even steps through the set, so that every category keeps its share. */
function limitTasks(set: TaskSet, limit: number | undefined): TaskSet {
  if (limit === undefined || limit >= set.tasks.length) return set;
  const tasks = Array.from({ length: limit }, (_, i) => set.tasks[Math.floor((i * set.tasks.length) / limit)]!);
  return { ...set, tasks };
}

/** A progress bar on stderr when it is a terminal (redrawn at most every 100 ms); none elsewhere. */
function progressLine(stream: NodeJS.WriteStream): ((progress: { mode: ProbedMode; done: number; total: number; clear?: boolean }) => void) | undefined {
  if (!stream.isTTY) return undefined;
  let drawn = 0;
  return ({ mode, done, total, clear }) => {
    if (clear) return void stream.write("\r\x1b[K");
    const now = performance.now();
    if (done < total && now - drawn < 100) return;
    drawn = now;
    stream.write(`\r\x1b[Keval ${mode} ${progressBar(done / total)} ${done}/${total}`);
  };
}
