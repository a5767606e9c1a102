/**
 * The bodies of call regions that special tokens or tags open and close, each parsed once
 * when its closer arrives: DeepSeek V3/R1/V3.1 `<｜tool▁calls▁begin｜>` sections, Kimi K2
 * `<|tool_calls_section_begin|>` sections, Cherry Studio `<tool_use>` blocks, the
 * gpt-oss Harmony message header, and the regions of Gemma 4, FunctionGemma, DeepSeek
 * V3.2/V4/V4.1 DSML, MiniMax M2 and M3, Kimi K3, step3, Seed-OSS and OLMo 3. Each returns undefined when the body holds no call, so the
 * parser gives the region back as text.
 */
import { callsFromValue, callsFromXmlBody, parseLooseJson, type KnownTools, type ParsedToolCall, type RegionParser } from "./call-shape.js";
import { callsFromGemma } from "./gemma-calls.js";
import { callsFromMiniMaxM3, invokeReader, MINIMAX_NS } from "./invoke-calls.js";
import { callsFromPythonic, callsFromPythonLines, looksPythonic } from "./pythonic.js";

const NAME = /^[\w.:-]{1,200}$/;

function namedCall(name: string, argsText: string, tools: KnownTools | undefined): ParsedToolCall | undefined {
  if (!NAME.test(name)) return undefined;
  const text = argsText.trim();
  const value = text === "" ? {} : parseLooseJson(text);
  return callsFromValue(value, { presetName: name, tagged: true, tools })?.[0];
}

export const DEEPSEEK = {
  open: "<｜tool▁calls▁begin｜>",
  /** DeepSeek R1 also opens the section with this shorter token. */
  openShort: "<｜tool▁calls｜>",
  close: "<｜tool▁calls▁end｜>",
  callBegin: "<｜tool▁call▁begin｜>",
  callEnd: "<｜tool▁call▁end｜>",
  sep: "<｜tool▁sep｜>",
} as const;

/**
 * DeepSeek V3/R1: `function<｜tool▁sep｜>NAME\n```json\n{...}\n```` per call; V3.1:
 * `NAME<｜tool▁sep｜>{...}`. A section whose call markers are missing is read as one call.
 */
export function callsFromDeepSeek(body: string, tools: KnownTools | undefined): ParsedToolCall[] | undefined {
  const pieces = body.includes(DEEPSEEK.callBegin) ? body.split(DEEPSEEK.callBegin).slice(1) : [body];
  const calls: ParsedToolCall[] = [];
  for (const piece of pieces) {
    const text = piece.split(DEEPSEEK.callEnd)[0] ?? "";
    const sep = text.indexOf(DEEPSEEK.sep);
    if (sep < 0) return undefined;
    const head = text.slice(0, sep).trim();
    const rest = text.slice(sep + DEEPSEEK.sep.length);
    let call: ParsedToolCall | undefined;
    if (head === "function") {
      const m = /^\s*([^\s`{]+)\s*(?:```(?:json)?\s*([\s\S]*?)\s*(?:```\s*)?$|([\s\S]*)$)/.exec(rest);
      call = m === null ? undefined : namedCall(m[1] ?? "", m[2] ?? m[3] ?? "", tools);
    } else call = namedCall(head, rest, tools);
    if (call === undefined) return undefined;
    calls.push(call);
  }
  return calls.length > 0 ? calls : undefined;
}

export const KIMI = {
  open: "<|tool_calls_section_begin|>",
  /** Kimi K2 sometimes writes the singular form. */
  openSingular: "<|tool_call_section_begin|>",
  close: "<|tool_calls_section_end|>",
  closeSingular: "<|tool_call_section_end|>",
  callBegin: "<|tool_call_begin|>",
  argBegin: "<|tool_call_argument_begin|>",
  callEnd: "<|tool_call_end|>",
} as const;

/** Kimi K2: `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{...}<|tool_call_end|>`. */
export function callsFromKimi(body: string, tools: KnownTools | undefined): ParsedToolCall[] | undefined {
  const calls: ParsedToolCall[] = [];
  for (const piece of body.split(KIMI.callBegin).slice(1)) {
    const text = piece.split(KIMI.callEnd)[0] ?? "";
    const arg = text.indexOf(KIMI.argBegin);
    if (arg < 0) return undefined;
    const id = /^(?:functions\.)?([\w.-]+?)(?::\d+)?$/.exec(text.slice(0, arg).trim());
    const call = id === null ? undefined : namedCall(id[1] ?? "", text.slice(arg + KIMI.argBegin.length), tools);
    if (call === undefined) return undefined;
    calls.push(call);
  }
  return calls.length > 0 ? calls : undefined;
}

/** A Kimi K2 call with no section around it, as the model sometimes writes it (llama.cpp reads it too). */
export const callsFromKimiCall: RegionParser = (body, tools) => callsFromKimi(KIMI.callBegin + body, tools);

/** Cherry Studio's prompt format: `<tool_use><name>NAME</name><arguments>{...}</arguments></tool_use>`. */
export function callsFromToolUse(body: string, tools: KnownTools | undefined): ParsedToolCall[] | undefined {
  const m = /^\s*<name>\s*([^<]*?)\s*<\/name>\s*(?:<arguments>([\s\S]*?)(?:<\/arguments>\s*)?)?$/.exec(body);
  if (m === null) return undefined;
  const call = namedCall(m[1] ?? "", m[2] ?? "", tools);
  return call === undefined ? undefined : [call];
}

export type HarmonyHeader =
  | { kind: "call"; name: string }
  | { kind: "reasoning" }
  | { kind: "text" };

/**
 * A gpt-oss Harmony header, between `<|start|>` or `<|channel|>` and `<|message|>`:
 * `assistant<|channel|>commentary to=functions.NAME <|constrain|>json`. The recipient may
 * stand in the role part too (`assistant to=functions.NAME<|channel|>commentary json`).
 */
export function readHarmonyHeader(header: string): HarmonyHeader | undefined {
  // `assistantto=`: servers that drop the space the template puts after the role.
  const recipient = /(?:^|\s|assistant)to=([^\s<]+)/.exec(header);
  if (recipient !== null) {
    const name = (recipient[1] ?? "").replace(/^functions\./, "");
    return NAME.test(name) ? { kind: "call", name } : undefined;
  }
  const channel = /(?:^|\|>|\s)(analysis|commentary|final)\b/.exec(header);
  if (channel === null) return undefined;
  return channel[1] === "analysis" ? { kind: "reasoning" } : { kind: "text" };
}

/** Gemma 4: `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:3}<tool_call|>`. */
export const GEMMA4 = { open: "<|tool_call>", close: "<tool_call|>", quote: '<|"|>' } as const;
/** FunctionGemma: `<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>`. */
export const FUNCTION_GEMMA = { open: "<start_function_call>", close: "<end_function_call>", quote: "<escape>" } as const;

/** Gemma 4 ends its turn with `<turn|>`; a call the model closed with it instead of `<tool_call|>` is still whole. */
const GEMMA_TURN_END = "<turn|>";
export const callsFromGemma4: RegionParser = (body) => {
  const end = body.indexOf(GEMMA_TURN_END);
  const call = end >= 0 && body.slice(end + GEMMA_TURN_END.length).trim() === "" ? body.slice(0, end) : body;
  return callsFromGemma(call, GEMMA4.quote);
};
export const callsFromFunctionGemma: RegionParser = (body) => callsFromGemma(body, FUNCTION_GEMMA.quote);

/**
 * DeepSeek DSML blocks of invokes: V3.2 `<｜DSML｜function_calls>`, V4 `<｜DSML｜tool_calls>`, V4.1
 * `<｜DSML｜ calls>` (a space after the marker in every tag). Clients that print the markup also
 * show it with ASCII bars (`<|DSML|tool_calls>`); every spelling is read.
 */
export const DSML_BLOCKS = ["function_calls", "tool_calls", " calls"] as const;
export const DSML_MARKERS = ["｜DSML｜", "|DSML|"] as const;
export const DSML = {
  open32: "<｜DSML｜function_calls>",
  close32: "</｜DSML｜function_calls>",
  open4: "<｜DSML｜tool_calls>",
  close4: "</｜DSML｜tool_calls>",
  open41: "<｜DSML｜ calls>",
  close41: "</｜DSML｜ calls>",
} as const;
export const callsFromDsml: RegionParser = invokeReader("[｜|]DSML[｜|] ?");

/**
 * MiniMax M2: `<minimax:tool_call><invoke name="N"><parameter name="K">V</parameter></invoke></minimax:tool_call>`;
 * M3 writes its element parameters there too when served by M2's rules.
 */
export const MINIMAX = { open: "<minimax:tool_call>", close: "</minimax:tool_call>" } as const;
const readMiniMaxM2 = invokeReader("");
export const callsFromMiniMax: RegionParser = (body, tools) => readMiniMaxM2(body, tools) ?? callsFromMiniMaxM3(body, tools);

export { MINIMAX_NS };

/**
 * A `<tool_call>` region read whole: MiniMax M3's invokes (`]<]minimax[>[<tool_call>` and
 * `<invoke>`s whose tags all carry that namespace token, or none when the server dropped it),
 * else Qwen3-Coder or GLM XML.
 */
export function callsFromToolCallBody(body: string, tools: KnownTools | undefined): ParsedToolCall[] | undefined {
  // A stray `</think>` just inside the tag (a model closing its reasoning late) hides the call's JSON.
  const afterThink = /^\s*<\/think>\s*([[{][\s\S]*)$/.exec(body)?.[1];
  if (afterThink !== undefined) {
    const value = parseLooseJson(afterThink);
    return value === undefined ? undefined : callsFromValue(value, { tagged: true, tools });
  }
  return /^\s*(?:\]<\]minimax\[>\[)?<invoke /.test(body) ? callsFromMiniMaxM3(body, tools) : callsFromXmlBody(body, tools);
}

/**
 * A fenced block (```xml, ```json) whose body is JSON inside one tag, as llama.cpp reads
 * `<response>`, `<tool_call>` or `<function_call>` there. Tags that mark calls make a call of
 * any name; the others (`<response>`, `<json>`, ...) only of a known tool.
 */
export function callsFromFencedTag(body: string, tools: KnownTools | undefined): ParsedToolCall[] | undefined {
  const m = /^\s*<([\w:-]{1,40})>\s*([[{][\s\S]*?)\s*<\/\1>\s*$/.exec(body);
  if (m === null) return undefined;
  const value = parseLooseJson(m[2] ?? "");
  const tagged = m[1] === "tool_call" || m[1] === "function_call";
  return value === undefined ? undefined : callsFromValue(value, { tagged, tools });
}

/**
 * Qwen3-Coder's `<function=NAME>` with no `<tool_call>` around it, as vLLM also reads it: the
 * body up to `</function>`, a call only when NAME is a known tool (prose shows the format too).
 */
export function callsFromBareFunction(name: string): RegionParser {
  return (body, tools) =>
    tools !== undefined && !tools.names.has(name) ? undefined : callsFromXmlBody(`<function=${name}>${body}</function>`, tools);
}

/**
 * StepFun step3: `<｜tool_calls_begin｜>`, then per call `<｜tool_call_begin｜>function<｜tool_sep｜>`,
 * a `<steptml:invoke>` and `<｜tool_call_end｜>`, then `<｜tool_calls_end｜>`.
 */
export const STEP3 = {
  open: "<｜tool_calls_begin｜>",
  close: "<｜tool_calls_end｜>",
  callBegin: "<｜tool_call_begin｜>",
  callEnd: "<｜tool_call_end｜>",
  sep: "<｜tool_sep｜>",
} as const;
const readSteptml = invokeReader("steptml:");

export function callsFromStep3(body: string, tools: KnownTools | undefined): ParsedToolCall[] | undefined {
  const [before, ...pieces] = body.split(STEP3.callBegin);
  if ((before ?? "").trim() !== "" || pieces.length === 0) return undefined;
  const calls: ParsedToolCall[] = [];
  for (const piece of pieces) {
    const m = /^\s*function\s*<｜tool_sep｜>([\s\S]*?)(?:<｜tool_call_end｜>\s*)?$/.exec(piece);
    const found = m === null ? undefined : readSteptml(m[1] ?? "", tools);
    if (found === undefined) return undefined;
    calls.push(...found);
  }
  return calls;
}

/** Seed-OSS: Qwen3-Coder's `<function=N><parameter=K>V</parameter></function>` inside `<seed:tool_call>`. */
export const SEED = { open: "<seed:tool_call>", close: "</seed:tool_call>" } as const;
export function callsFromSeed(body: string, tools: KnownTools | undefined): ParsedToolCall[] | undefined {
  return /^\s*<function=/.test(body) ? callsFromXmlBody(body, tools, true) : undefined;
}

/**
 * LFM2: `<|tool_call_start|>[name(key="value"), ...]<|tool_call_end|>`; also written without
 * the list's brackets, or as a JSON list. An empty list says the model called nothing.
 */
export const LFM2 = { open: "<|tool_call_start|>", close: "<|tool_call_end|>" } as const;
export function callsFromLfm2(body: string, tools: KnownTools | undefined): ParsedToolCall[] | undefined {
  const text = body.trim();
  if (/^\[\s*\]$/.test(text)) return [];
  if (looksPythonic(text)) return callsFromPythonic(text);
  if (/^[[{]/.test(text)) {
    const value = parseLooseJson(text);
    return value === undefined ? undefined : callsFromValue(value, { tagged: true, tools });
  }
  return callsFromPythonLines(text);
}

/** OLMo 3: bare Python calls, one per line, inside `<function_calls>`. */
export const OLMO3 = { open: "<function_calls>", close: "</function_calls>" } as const;
export const callsFromOlmo: RegionParser = (body) => callsFromPythonLines(body);
