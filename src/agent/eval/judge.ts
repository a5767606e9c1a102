import { SEARCH_TOOL_NAME } from "../../toolcall/tool-search.js";
import type { ToolCallRecord, TurnResult } from "../events.js";
import type { EvalTask } from "./task-set.js";

/** What the calls of a task (or of every task of a mode, added up) were. */
export interface CallCounts {
  /** Tool calls made (the tool search's own calls not counted). */
  calls: number;
  /** Calls whose arguments parsed and validated against the tool's schema, and that reached a tool the task offered. */
  validCalls: number;
  /** Calls of a tool that does not do this task (a decoy, a neighbour, an unknown name). */
  wrongTool: number;
  /** Calls of a right tool whose arguments were invalid, failed in the tool, or gave a value the task does not need. */
  wrongArguments: number;
  /** Calls in a task that needs no tool. */
  falseCalls: number;
  /** 1 when the task needed a tool and no call of one was made (a call written in prose is no call). */
  missed: number;
  tokens: number;
}

/** How one task went: right or not (and why not), and what its calls were. */
export interface TaskVerdict extends CallCounts {
  id: string;
  right: boolean;
  /** Why the task is not right, in one line. */
  why?: string;
  /** The turn failed or was cut short (a server error, the time limit). */
  error?: true;
}

/** Outcomes that mean the arguments never reached the tool: they did not parse or validate, or the name was unknown. */
const UNVALIDATED = new Set(["invalid-json", "invalid-arguments", "unknown-tool"]);

/** Judges one finished turn against its task, by the results and the answer, not the wording. */
export function judgeTurn(task: EvalTask, turn: TurnResult): TaskVerdict {
  const calls = turn.toolCalls.filter((call) => call.name !== SEARCH_TOOL_NAME);
  const verdict: TaskVerdict = { id: task.id, right: false, calls: calls.length, validCalls: 0, wrongTool: 0, wrongArguments: 0, falseCalls: 0, missed: 0, tokens: turn.usage.totalTokens };
  for (const call of calls) if (!UNVALIDATED.has(call.outcome)) verdict.validCalls++;
  const fail = (why: string): TaskVerdict => ({ ...verdict, why });
  if (turn.status !== "completed") return { ...fail(`the turn ${turn.status}: ${turn.error?.message ?? turn.stopReason}`), error: true };
  const expect = task.expect;
  const answer = turn.text;

  if (expect.kind === "none") {
    verdict.falseCalls = calls.length;
    if (calls.length > 0) return fail(`called ${calls[0]?.name} though no tool was needed`);
    const missing = expect.answer.find((claim) => !includesAny(answer, claim));
    return missing === undefined ? { ...verdict, right: true } : fail(`the answer does not say ${missing}`);
  }

  const accept = expect.kind === "value" ? new Set(expect.accept) : new Set(["get-date"]);
  const rightTool = calls.filter((call) => accept.has(call.name));
  verdict.wrongTool = calls.length - rightTool.length;
  if (rightTool.length === 0) verdict.missed = calls.length === 0 ? 1 : 0;

  if (expect.kind === "value") {
    const returned = rightTool.filter((call) => call.outcome === "ok").map((call) => ({ call, values: resultNumbers(call) }));
    const needed = [...expect.values, ...(expect.partials ?? [])];
    for (const call of rightTool) {
      if (call.outcome !== "ok") verdict.wrongArguments++;
      // Without partials, every right call must give a needed value: one giving another had wrong arguments.
      else if (!expect.partials && !resultNumbers(call).some((value) => needed.some((want) => sameNumber(value, want)))) verdict.wrongArguments++;
    }
    if (verdict.missed) return fail("no tool was called");
    if (verdict.wrongTool) return fail(`called ${calls.find((call) => !accept.has(call.name))?.name}, a tool this task does not need`);
    const notReturned = expect.values.find((want) => !returned.some(({ values }) => values.some((value) => sameNumber(value, want))));
    if (notReturned !== undefined) return fail(`no call gave ${notReturned}`);
    const stated = answerNumbers(answer);
    const unstated = expect.values.find((want) => !stated.some((number) => statesNumber(number, want)));
    return unstated === undefined ? { ...verdict, right: true } : fail(`the answer does not state ${unstated}`);
  }

  // A date: get-date with the zone and format asked for, and the answer stating what it returned.
  const fitting = (call: ToolCallRecord) => {
    const args = call.arguments ?? {};
    const zoneFits = expect.timezone === undefined || (typeof args.timezone === "string" && args.timezone.toLowerCase() === expect.timezone.toLowerCase());
    return zoneFits && args.format === expect.format;
  };
  for (const call of rightTool) if (call.outcome !== "ok" || !fitting(call)) verdict.wrongArguments++;
  if (verdict.missed) return fail("no tool was called");
  if (verdict.wrongTool) return fail(`called ${calls.find((call) => !accept.has(call.name))?.name}, a tool this task does not need`);
  const good = rightTool.find((call) => call.outcome === "ok" && fitting(call));
  if (!good) return fail(`get-date was not called with ${expect.timezone ? `timezone ${expect.timezone} and ` : ""}format ${expect.format}`);
  const claims = dateClaims(resultText(good), expect.format);
  if (claims.length === 0) return fail(`get-date returned no ${expect.format}: ${resultText(good).slice(0, 80)}`);
  const missing = claims.find((claim) => !answer.includes(claim) && !answerNumbers(answer).some((n) => /^\d+$/.test(claim) && n === Number(claim)));
  return missing === undefined ? { ...verdict, right: true } : fail(`the answer does not state ${missing} from get-date`);
}

/** The facts of a get-date result an answer must state: the timestamp, the date's day and year, or the time's hour and minute. */
function dateClaims(text: string, format: "date-only" | "time-only" | "timestamp"): string[] {
  if (format === "timestamp") return /^\d+$/.test(text.trim()) ? [text.trim()] : [];
  if (format === "date-only") {
    const date = /(\d{1,2})\/(\d{1,2})\/(\d{4})/.exec(text);
    return date ? [String(Number(date[2])), date[3] as string] : [];
  }
  const time = /(\d{1,2}):(\d{2})/.exec(text);
  return time ? [`${time[1]}:${time[2]}`] : [];
}

function resultText(call: ToolCallRecord): string {
  return (call.result?.content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** The numbers a math tool returned: a calculation's result, or each result of a batch. */
function resultNumbers(call: ToolCallRecord): number[] {
  const result = (call.result?.structuredContent as { result?: { result?: unknown; results?: Array<{ result?: unknown }> } } | undefined)?.result;
  if (!result) return [];
  const values = typeof result.result === "number" ? [result.result] : [];
  for (const item of result.results ?? []) if (typeof item.result === "number") values.push(item.result);
  return values;
}

function sameNumber(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
}

/** The numbers an answer states, as written (thousands separators and a typographic minus understood), with the decimals shown. */
export function answerNumbers(text: string): number[] {
  const out: number[] = [];
  for (const match of text.replace(/[−–]/g, "-").matchAll(/-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi)) {
    out.push(Number(match[0].replace(/,/g, "")));
  }
  return out;
}

/** A stated number gives `want` when it is `want` rounded to the decimals it shows (2.33 states 7/3; 2 does not). */
function statesNumber(stated: number, want: number): boolean {
  if (sameNumber(stated, want)) return true;
  const decimals = (String(stated).split(".")[1] ?? "").length;
  return decimals >= 2 && Math.abs(stated - want) <= 0.5 * 10 ** -decimals + 1e-12;
}

function includesAny(answer: string, claim: string): boolean {
  const lower = answer.toLowerCase();
  return claim.split("|").some((option) => {
    const word = option.toLowerCase();
    // Whole words: "Au" is not in "August", "0" is not in "10".
    return new RegExp(`(^|[^\\p{L}\\p{N}])${word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[^\\p{L}\\p{N}])`, "u").test(lower);
  });
}
