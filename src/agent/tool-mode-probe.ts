import { LlmError } from "../llm/errors.js";
import { withStrictTools } from "../llm/strict-tools.js";
import type { ChatModel, ToolDefinition } from "../llm/types.js";
import { PROBED_MODES, type ProbedMode, type ToolCallingMiddlewares } from "./tool-mode.js";

/** One mode's result: whether the model made the expected call, how long the request took, and why not. */
export interface ProbeRow {
  mode: ProbedMode;
  ok: boolean;
  ms: number;
  /** Why it failed (one line), or why it was not tried. */
  detail?: string;
}

export interface ProbeOptions {
  middlewares: ToolCallingMiddlewares;
  /** How long one mode's request may take, answer included (default 20 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The bundled math server's `add`, as its definition reaches a model. */
export const PROBE_TOOL: ToolDefinition = {
  name: "add",
  description: "Add two numbers (a + b).",
  parameters: {
    type: "object",
    properties: { a: { type: "number", description: "First number" }, b: { type: "number", description: "Second number" } },
    required: ["a", "b"],
    additionalProperties: false,
  },
};

const PROBE_PROMPT = "Call the add tool with a = 17 and b = 25. Reply with the tool call only.";
/** How long one mode may take by default. */
export const PROBE_TIMEOUT_MS = 20_000;
/** Room for a thinking model's preamble before the call; the time limit bounds it too. */
const PROBE_MAX_TOKENS = 1024;

/**
 * One request per mode, each asking for one call of `add` with given numbers: a mode passes
 * when the call comes back named and with those arguments. Bounded: one request per mode (a
 * server error is not retried, a refusal of `strict` adds one), each within `timeoutMs`;
 * after a mode gets no answer in time the rest are not tried, since that server would not
 * answer them either.
 */
export async function probeToolModes(model: ChatModel, options: ProbeOptions): Promise<ProbeRow[]> {
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const rows: ProbeRow[] = [];
  let hung: ProbedMode | undefined;
  for (const mode of PROBED_MODES) {
    if (hung) {
      rows.push({ mode, ok: false, ms: 0, detail: `not tried: no answer to ${hung} in ${seconds(timeoutMs)}` });
      continue;
    }
    if (mode === "native-strict" && model.strictTools === undefined) {
      rows.push({ mode, ok: false, ms: 0, detail: `not tried: ${model.provider} has no strict tool calls` });
      continue;
    }
    const row = await probeOne(model, mode, timeoutMs, options);
    // The adapter falls back without `strict` when the server refuses it: that is no strict call.
    if (mode === "native-strict" && row.ok && model.strictTools === "refused") Object.assign(row, { ok: false, detail: "the server refuses strict tool definitions" });
    rows.push(row);
    if (row.detail?.startsWith("no answer")) hung = mode;
    if (options.signal?.aborted) break;
  }
  return rows;
}

/** The best mode that passed, in the order of PROBED_MODES; undefined when none did. */
export function bestMode(rows: readonly ProbeRow[]): ProbedMode | undefined {
  return PROBED_MODES.find((mode) => rows.some((row) => row.mode === mode && row.ok));
}

async function probeOne(model: ChatModel, mode: ProbedMode, timeoutMs: number, options: ProbeOptions): Promise<ProbeRow> {
  const wrapped =
    mode === "prompt" ? options.middlewares.prompt(model) : options.middlewares.textFallback(withStrictTools(model, mode === "native-strict"));
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
  const started = performance.now();
  const row = (ok: boolean, detail?: string): ProbeRow => ({ mode, ok, ms: Math.round(performance.now() - started), ...(detail ? { detail } : {}) });
  let text = "";
  try {
    for await (const event of wrapped.stream({
      messages: [{ role: "user", content: PROBE_PROMPT }],
      tools: [PROBE_TOOL],
      toolChoice: "auto",
      temperature: 0,
      maxTokens: PROBE_MAX_TOKENS,
      signal,
    })) {
      if (event.type === "text-delta" && text.length < 200) text += event.text;
      // A retry would be a second request for one mode: the probe counts the failure instead.
      if (event.type === "retry") return row(false, `the server failed (${event.reason})`);
      if (event.type === "tool-call") return row(...judgeCall(event.call.name, event.call.arguments));
    }
    return row(false, text.trim() ? `no tool call; it wrote: ${clip(text)}` : "no tool call and no text");
  } catch (error) {
    // Ours or the adapter's own idle timeout: either way the server did not answer.
    if ((timeout.signal.aborted && !options.signal?.aborted) || (error instanceof LlmError && error.code === "timeout")) return row(false, `no answer in ${seconds(timeoutMs)}`);
    return row(false, error instanceof Error ? clip(error.message) : String(error));
  } finally {
    clearTimeout(timer);
  }
}

function judgeCall(name: string, args: string): [boolean, string?] {
  if (name !== PROBE_TOOL.name) return [false, `called ${clip(name)} instead of add`];
  let parsed: unknown;
  try {
    parsed = JSON.parse(args || "{}");
  } catch {
    return [false, `arguments are not JSON: ${clip(args)}`];
  }
  const { a, b } = (parsed ?? {}) as { a?: unknown; b?: unknown };
  return a === 17 && b === 25 ? [true] : [false, `wrong arguments: ${clip(args)}`];
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
