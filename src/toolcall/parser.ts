/**
 * The streaming tool-call parser: one incremental state machine that reads a model's text
 * deltas (any size, one character to a whole message), detects the call format by itself
 * (Hermes/Qwen `<tool_call>`, Qwen3-Coder and GLM XML, bare or fenced JSON, Llama 3
 * `<|python_tag|>`, Llama 3.2/4 pythonic lists, Mistral `[TOOL_CALLS]` in all its versions,
 * DeepSeek and Kimi K2 special-token sections, gpt-oss Harmony channels, Granite, FireFunction
 * `functools`, Command R actions, `<function=...>`, Cherry Studio `<tool_use>`, DeepChat
 * `<function_call>`, and the families of call-regions.ts), separates reasoning (`<think>`,
 * `[THINK]`, Command R's, Harmony's, MiniMax M3's `<mm:think>`, Kimi K3's think channel),
 * and emits text at once, holding back only a suffix that could still begin a call.
 *
 * Linear time and memory whatever the chunking: every character is scanned a bounded number
 * of times (a held-back literal is at most MAX_LITERAL long), a call's text is collected in
 * parts and parsed once when its end is found, and nothing rescans the buffer per delta.
 */
import {
  acceptable,
  callsFromValue,
  knownTools,
  parseLooseJson,
  typedBySchema,
  type KnownTools,
  type ParsedToolCall,
  type RegionParser,
  type ToolList,
} from "./call-shape.js";
import {
  DEEPSEEK,
  DSML_BLOCKS,
  DSML_MARKERS,
  FUNCTION_GEMMA,
  GEMMA4,
  KIMI,
  LFM2,
  MINIMAX,
  MINIMAX_NS,
  OLMO3,
  SEED,
  STEP3,
  callsFromBareFunction,
  callsFromDeepSeek,
  callsFromDsml,
  callsFromFencedTag,
  callsFromFunctionGemma,
  callsFromGemma4,
  callsFromKimi,
  callsFromKimiCall,
  callsFromLfm2,
  callsFromMiniMax,
  callsFromOlmo,
  callsFromSeed,
  callsFromStep3,
  callsFromToolCallBody,
  callsFromToolUse,
  readHarmonyHeader,
} from "./call-regions.js";
import { JsonScanner } from "./json-scanner.js";
import { callsFromPythonic, looksPythonic } from "./pythonic.js";
import { callsFromXtml, XTML } from "./xtml-calls.js";

export type ToolCallParserEvent =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "tool-call"; name: string; arguments: Record<string, unknown> };

export interface ToolCallParserOptions {
  /** The tools calls may use. With it, untagged JSON must name one of them to be a call. */
  tools?: ToolList;
  /**
   * The prompt already opened a reasoning block (QwQ, DeepSeek-R1 and Qwen3 thinking templates
   * end the prompt with `<think>`), so the text is reasoning until `</think>`.
   */
  startInReasoning?: boolean;
}

export interface ToolCallParser {
  push(delta: string): ToolCallParserEvent[];
  end(): ToolCallParserEvent[];
  /**
   * True once a `</think>` closed a reasoning block that was never opened in the text: the
   * prompt opened it, so the text before was reasoning streamed as text. A caller learns from
   * it to pass `startInReasoning` to the model's next streams.
   */
  readonly closedUnopenedReasoning: boolean;
}

export interface ParsedMessage {
  calls: ParsedToolCall[];
  content: string;
  reasoning: string;
}

const enum State {
  Text,
  /** Collecting a literal that may still become a trigger (`<tool_c`, `{"na`, a fence). */
  Match,
  /** After an opener, before the call body: whitespace, then the body's first character. */
  Lead,
  /** Mistral's `[TOOL_CALLS]name[ARGS]` before the arguments object. */
  Name,
  Json,
  /** A region read whole up to its closer: XML inside `<tool_call>`, special-token sections, a Harmony header. */
  Xml,
  /** After a call: whitespace, then the container's closer, another call, or text. */
  Trailer,
  /** After an LFM2 call block: holding text while it still repeats the block (see stepEcho). */
  Echo,
}

type ContainerKind =
  | "tool_call"
  | "wrapper"
  | "python_tag"
  | "mistral"
  | "fence"
  | "function"
  | "bare"
  /** `[name(`: a pythonic call list with no marker around it. */
  | "pythonic"
  /** A call list after a marker, closed by its closer or by the end of the list (`<|START_ACTION|>`, `functools`, `<|python_start|>`). */
  | "list"
  /** A section read whole and parsed by `region` (DeepSeek, Kimi K2, `<tool_use>`). */
  | "region"
  /** gpt-oss: the header up to `<|message|>`, which says what the message is. */
  | "harmony-header";

interface Container {
  kind: ContainerKind;
  /** The model marked the region as a call (a tag or special token), not merely wrote JSON. */
  tagged: boolean;
  closer: string | null;
  name?: string;
  region?: RegionParser;
  /** A region whose body must start (after whitespace) with a character this matches; anything else is prose that mentioned the opener. */
  start?: RegExp;
  /** A region whose first tag must match this as soon as it is written; anything else is given back at once, not held to the closer. */
  head?: RegExp;
}

type MatchResult =
  | { kind: "partial" }
  | { kind: "none" }
  /** `atStartOnly`: an opener that is also a word of prose (`[THINK]`), reasoning only where the reply starts. */
  | { kind: "think-open"; closer: string; atStartOnly?: boolean }
  /** A structural token with nothing to say (Harmony's `<|end|>`, Command R's `<|START_RESPONSE|>`). */
  | { kind: "drop" }
  | { kind: "think-close" }
  | { kind: "code-end" }
  | { kind: "code-start" }
  /** A single backtick: inline code, where a marker is shown, not written. */
  | { kind: "inline-code" }
  | { kind: "closer" }
  | { kind: "bare" }
  | { kind: "open"; container: Container };

const MAX_LITERAL = 160;
const MAX_LEAD = 2048;
const MAX_NAME = 200;
/** A Harmony header longer than this is not one. */
const MAX_HEADER = 512;
const THINK_CLOSE = "</think>";
const MM_THINK_CLOSE = "</mm:think>";
/**
 * What may close a reasoning block the prompt opened (the generation prompt ends with the
 * opener, so the text starts inside). All start with `<`: the reasoning scan stops at it.
 */
const PROMPT_OPENED_CLOSERS: readonly string[] = [THINK_CLOSE, MM_THINK_CLOSE, XTML.thinkClose];

const TOOL_CALL_OPEN = "<tool_call>";
const TOOL_CALL: Container = { kind: "tool_call", tagged: true, closer: "</tool_call>" };
/** After a bare `<function=...>` call: a `</tool_call>` there closes nothing the text should keep. */
const ORPHAN_TOOL_CALL_CLOSER: Container = { kind: "function", tagged: true, closer: "</tool_call>" };
/** Granite's special token, followed by a JSON array of calls. */
const GRANITE: Container = { kind: "python_tag", tagged: true, closer: null };
/**
 * Tags models put around call JSON when not trained on one (Qwen2.5-Coder's `<tools>`, and
 * `<tool>`, `<json>`, `<response>`, ... as llama.cpp accepts). Not a call marker by
 * themselves (tool lists are printed in `<tools>`), so their JSON must name a known tool.
 */
const wrapper = (tag: string): readonly [string, MatchResult] => [
  `<${tag}>`,
  { kind: "open", container: { kind: "wrapper", tagged: false, closer: `</${tag}>` } },
];
const PYTHON_TAG: Container = { kind: "python_tag", tagged: true, closer: null };
const MISTRAL: Container = { kind: "mistral", tagged: true, closer: null };
const FENCE: Container = { kind: "fence", tagged: false, closer: "```" };
const BARE: Container = { kind: "bare", tagged: false, closer: null };
const PYTHONIC: Container = { kind: "pythonic", tagged: false, closer: null };

const region = (open: string, closer: string, parse: RegionParser, start?: RegExp): readonly [string, MatchResult] => [
  open,
  { kind: "open", container: { kind: "region", tagged: true, closer, region: parse, ...(start !== undefined ? { start } : {}) } },
];
const TAG = /</;
const list = (open: string, closer: string | null): readonly [string, MatchResult] => [
  open,
  { kind: "open", container: { kind: "list", tagged: true, closer } },
];
const HARMONY_HEADER: Container = { kind: "harmony-header", tagged: true, closer: "<|message|>" };
const HARMONY_START = "<|start|>";
/** The tags llama.cpp reads a call's JSON in inside a fence (```xml then <response>). */
const FENCED_CALL_TAG = /^\s*<(?:response|tool_call|function_call|tools?|json|JSON|xml)>/;
/** An analysis message ends at `<|end|>`, or where the next message starts when the end token was left out. */
const HARMONY_REASONING_CLOSERS: readonly string[] = ["<|end|>", HARMONY_START];
const DROP: MatchResult = { kind: "drop" };

const LITERALS: ReadonlyArray<readonly [string, MatchResult]> = [
  [TOOL_CALL_OPEN, { kind: "open", container: TOOL_CALL }],
  ["<|python_tag|>", { kind: "open", container: PYTHON_TAG }],
  ["<|tool_call|>", { kind: "open", container: GRANITE }],
  ["[TOOL_CALLS]", { kind: "open", container: MISTRAL }],
  ["<think>", { kind: "think-open", closer: THINK_CLOSE }],
  [THINK_CLOSE, { kind: "think-close" }],
  // Magistral and Command R (7B, A) think in their own tokens.
  ["[THINK]", { kind: "think-open", closer: "[/THINK]", atStartOnly: true }],
  ["<|START_THINKING|>", { kind: "think-open", closer: "<|END_THINKING|>" }],
  ["<|START_RESPONSE|>", DROP],
  ["<|END_RESPONSE|>", DROP],
  list("<|START_ACTION|>", "<|END_ACTION|>"),
  // Llama 4 wraps its pythonic calls; FireFunction v2 writes ` functools[{...}]`.
  list("<|python_start|>", "<|python_end|>"),
  list("functools", null),
  region(DEEPSEEK.open, DEEPSEEK.close, callsFromDeepSeek),
  // R1's short section opener, and a call with no section around it (both read by llama.cpp).
  region(DEEPSEEK.openShort, DEEPSEEK.close, callsFromDeepSeek),
  region(DEEPSEEK.callBegin, DEEPSEEK.callEnd, callsFromDeepSeek),
  region(KIMI.open, KIMI.close, callsFromKimi),
  region(KIMI.openSingular, KIMI.closeSingular, callsFromKimi),
  region(KIMI.callBegin, KIMI.callEnd, callsFromKimiCall),
  region("<tool_use>", "</tool_use>", callsFromToolUse, TAG),
  region(GEMMA4.open, GEMMA4.close, callsFromGemma4, /c/),
  region(FUNCTION_GEMMA.open, FUNCTION_GEMMA.close, callsFromFunctionGemma, /c/),
  ...DSML_MARKERS.flatMap((m) => DSML_BLOCKS.map((block) => region(`<${m}${block}>`, `</${m}${block}>`, callsFromDsml, TAG))),
  region(MINIMAX.open, MINIMAX.close, callsFromMiniMax, TAG),
  region(STEP3.open, STEP3.close, callsFromStep3, TAG),
  region(SEED.open, SEED.close, callsFromSeed, TAG),
  region(OLMO3.open, OLMO3.close, callsFromOlmo, /[A-Za-z_]/),
  ["<seed:think>", { kind: "think-open", closer: "</seed:think>", atStartOnly: true }],
  // MiniMax M3: its own think tags, and a namespace token before every tag of a call.
  ["<mm:think>", { kind: "think-open", closer: MM_THINK_CLOSE }],
  [MM_THINK_CLOSE, { kind: "think-close" }],
  [MINIMAX_NS, DROP],
  // Kimi K3's XTML channels: think, response (text), tools; the message's end says nothing.
  [XTML.thinkOpen, { kind: "think-open", closer: XTML.thinkClose }],
  [XTML.thinkClose, { kind: "think-close" }],
  [XTML.responseOpen, DROP],
  [XTML.responseClose, DROP],
  [XTML.messageClose, DROP],
  [XTML.endOfMessage, DROP],
  region(XTML.open, XTML.close, callsFromXtml, TAG),
  // LFM2 wraps a pythonic (or JSON) list in its call tokens; Hunyuan A13B a JSON list in
  // <tool_calls>, Nemotron in <TOOLCALL>.
  region(LFM2.open, LFM2.close, callsFromLfm2, /[[{A-Za-z_]/),
  list("<tool_calls>", "</tool_calls>"),
  list("<TOOLCALL>", "</TOOLCALL>"),
  // gpt-oss Harmony: a message is a header, `<|message|>`, its body, then an end token.
  [HARMONY_START, { kind: "open", container: HARMONY_HEADER }],
  ["<|channel|>", { kind: "open", container: HARMONY_HEADER }],
  ["<|end|>", DROP],
  ["<|return|>", DROP],
  ...["tools", "tool", "function_call", "json", "JSON", "xml", "response"].map(wrapper),
];

/** The literals by their first character: a character in Match is compared with a few, not all. */
const LITERALS_BY_FIRST = new Map<string, Array<readonly [string, MatchResult]>>();
for (const entry of LITERALS) {
  const first = entry[0].charAt(0);
  LITERALS_BY_FIRST.set(first, [...(LITERALS_BY_FIRST.get(first) ?? []), entry]);
}

/** The first key of an untagged JSON object that may be a call; anything else stays prose. */
const CALL_KEYS = [
  "name",
  "arguments",
  "parameters",
  "tool_name",
  "tool",
  "function",
  "type",
  "id",
  "tool_calls",
  "args",
] as const;
/** Fences a call may stand in: JSON's, the call tags', and xml (llama.cpp reads calls in ```xml too). */
const JSON_FENCE_LANGS = new Set(["", "json", "jsonc", "json5", "tool_call", "tool_code", "tool_calls", "xml"]);

const PARTIAL: MatchResult = { kind: "partial" };
const NONE: MatchResult = { kind: "none" };
const INLINE_CODE: MatchResult = { kind: "inline-code" };

const LT = 60;
/** `]`: MiniMax M3's namespace token `]<]minimax[>[` starts with it. */
const CLOSE_BRACKET = 93;
const LOWER_F = 102;
const BACKTICK = 96;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const NEWLINE = 10;

const isSpace = (ch: string): boolean => ch === " " || ch === "\n" || ch === "\t" || ch === "\r";
const isKeyChar = (ch: string): boolean => /^[A-Za-z_]$/.test(ch);

/** Whether `lit` is, or may still become, the head of a JSON object or array of calls. */
function jsonHead(lit: string): MatchResult {
  let i = 0;
  const n = lit.length;
  if (lit.charAt(0) === "[") {
    i = 1;
    while (i < n && isSpace(lit.charAt(i))) i++;
    if (i === n) return PARTIAL;
    if (lit.charAt(i) !== "{") return NONE;
  }
  i++;
  for (;;) {
    while (i < n && isSpace(lit.charAt(i))) i++;
    if (i === n) return PARTIAL;
    // Relaxed JSON: `//` comment lines before the first key (the literal's bound caps their length).
    if (lit.charAt(i) !== "/") break;
    if (i + 1 === n) return PARTIAL;
    if (lit.charAt(i + 1) !== "/") return NONE;
    const eol = lit.indexOf("\n", i);
    if (eol < 0) return PARTIAL;
    i = eol + 1;
  }
  const q = lit.charAt(i);
  const quoted = q === '"' || q === "'";
  if (quoted) i++;
  const keyStart = i;
  while (i < n && isKeyChar(lit.charAt(i))) i++;
  const key = lit.slice(keyStart, i);
  if (i === n) return CALL_KEYS.some((k) => k.startsWith(key)) ? PARTIAL : NONE;
  if (!(CALL_KEYS as readonly string[]).includes(key)) return NONE;
  if (quoted) return lit.charAt(i) === q ? { kind: "bare" } : NONE;
  if (key === "") return NONE;
  while (i < n && isSpace(lit.charAt(i))) i++;
  if (i === n) return PARTIAL;
  return lit.charAt(i) === ":" ? { kind: "bare" } : NONE;
}

/** `[name(`: the head of a pythonic call list (Llama 3.2/4), or what may still become one. */
function pythonicHead(lit: string): MatchResult {
  if (/^\[\s*(?:[A-Za-z_][\w.-]*\s*)?$/.test(lit)) return PARTIAL;
  return /^\[\s*[A-Za-z_][\w.-]*\s*\($/.test(lit) ? { kind: "open", container: PYTHONIC } : NONE;
}

/** `<function=NAME>` (Functionary, Llama 3.1 custom tools) and `<function name="NAME">`. */
function functionTag(lit: string): MatchResult {
  const eq = "<function=";
  const attr = '<function name="';
  if (eq.startsWith(lit) || attr.startsWith(lit)) return PARTIAL;
  let m: RegExpExecArray | null = null;
  if (lit.startsWith(eq)) {
    m = /^<function=([\w.:-]*)(>?)$/.exec(lit);
    if (m === null) return NONE;
    if (m[2] === "") return PARTIAL;
  } else if (lit.startsWith(attr)) {
    const r = /^<function name="([\w.:-]*)("?)(>?)$/.exec(lit);
    if (r === null || (r[3] === ">" && r[2] === "")) return NONE;
    if (r[3] === "") return PARTIAL;
    m = r;
  } else return NONE;
  const name = m[1] ?? "";
  return name === "" ? NONE : { kind: "open", container: { kind: "function", tagged: true, closer: "</function>", name } };
}

function fence(lit: string): MatchResult {
  if ("```".startsWith(lit)) return PARTIAL;
  if (lit.length === 2 && lit.charAt(0) === "`") return INLINE_CODE;
  if (!lit.startsWith("```")) return NONE;
  const m = /^```([\w-]{0,20})[ \t]*(\n?)$/.exec(lit);
  if (m === null) return NONE;
  if (m[2] === "") return PARTIAL;
  return JSON_FENCE_LANGS.has((m[1] ?? "").toLowerCase()) ? { kind: "open", container: FENCE } : { kind: "code-start" };
}

class StreamParser implements ToolCallParser {
  private readonly tools: KnownTools | undefined;
  private readonly scanner = new JsonScanner();
  private out: ToolCallParserEvent[] = [];
  private state = State.Text;
  private reasoning: boolean;
  /** What may end the reasoning block being read. */
  private reasoningClosers: readonly string[] = [THINK_CLOSE];
  closedUnopenedReasoning = false;
  /** Nothing but whitespace was given out yet: FireFunction's `functools[` only opens a reply. */
  private atStart = true;
  private inCodeBlock = false;
  /** Inside a `span` of inline code, which ends at its closing backtick or at the line's end. */
  private inInlineCode = false;
  private lit = "";
  /** A Match started in a Trailer: the closer it may complete, "" when there is none. */
  private matchCloser: string | null = null;
  private container: Container | null = null;
  /** The opener and whitespace before a call body: given back as text if no call follows. */
  private leadRaw = "";
  private nameBuf = "";
  private parts: string[] = [];
  /** How much of the container's closer the last characters of the body matched. */
  private closerAt = 0;
  /** How much of `<tool_call>` the last characters of a `<tool_call>` body matched. */
  private reopenAt = 0;
  private trailerSpace = "";
  private regionLength = 0;
  /** The region's first tag matched its `head`. */
  private headSeen = false;
  /** In Echo: the closed LFM2 block's body and end token, which an echo repeats. */
  private echoOf = "";
  /** In Echo: where the body ends in `echoOf` (whitespace may stand there and before the body). */
  private echoBodyEnd = 0;
  /** In Echo: how much of `echoOf` the held text matched. */
  private echoAt = 0;
  /** In Echo: the text held back, in the pieces it came in; given back if it is not an echo. */
  private echoHeld: string[] = [];
  private echoHeldLength = 0;

  constructor(options: ToolCallParserOptions) {
    this.tools = knownTools(options.tools);
    this.reasoning = options.startInReasoning === true;
    if (this.reasoning) this.reasoningClosers = PROMPT_OPENED_CLOSERS;
  }

  push(delta: string): ToolCallParserEvent[] {
    this.feed(delta);
    return this.take();
  }

  end(): ToolCallParserEvent[] {
    switch (this.state) {
      case State.Match:
        // Half of the closing tag of a finished call is dropped with it; anything else is text.
        if (this.matchCloser && this.matchCloser.startsWith(this.lit)) this.trailerSpace = "";
        else {
          if (this.matchCloser !== null) this.leaveTrailer();
          this.emitText(this.lit);
        }
        this.matchCloser = null;
        this.lit = "";
        break;
      case State.Lead:
        this.giveBack(this.leadRaw);
        break;
      case State.Name:
        if (this.container?.kind === "tool_call") {
          // `<tool_call>name` at the very end: GLM's call without arguments and closer.
          this.finishRegion(this.nameBuf, "");
          this.nameBuf = "";
        } else this.giveBack(this.leadRaw + this.nameBuf);
        break;
      case State.Json:
        this.finishJson(this.parts.join(""), "");
        break;
      case State.Xml:
        this.finishRegion(this.parts.join(""), "");
        break;
      case State.Echo:
        // An echo cut off by the end of the stream (the token limit) is no more text than a whole one.
        this.dropEcho();
        break;
      case State.Trailer:
      case State.Text:
        break;
    }
    this.state = State.Text;
    this.container = null;
    return this.take();
  }

  private take(): ToolCallParserEvent[] {
    const events = this.out;
    this.out = [];
    return events;
  }

  private feed(s: string): void {
    const n = s.length;
    let i = 0;
    while (i < n) {
      switch (this.state) {
        case State.Text:
          i = this.scanText(s, i);
          break;
        case State.Json:
          i = this.scanJson(s, i);
          break;
        case State.Xml:
          i = this.scanRegion(s, i);
          break;
        case State.Echo:
          i = this.scanEcho(s, i);
          break;
        default:
          // Character states return false when the character must be read again in the new state.
          if (this.step(s.charAt(i))) i++;
      }
    }
  }

  private scanText(s: string, from: number): number {
    const n = s.length;
    const code = this.inCodeBlock;
    let inline = this.inInlineCode;
    let j = from;
    if (this.reasoning) {
      const stop = (this.reasoningClosers[0] ?? THINK_CLOSE).charCodeAt(0);
      while (j < n && s.charCodeAt(j) !== stop) j++;
    } else {
      for (; j < n; j++) {
        const c = s.charCodeAt(j);
        if (inline) {
          if (c === BACKTICK || c === NEWLINE) inline = false;
          continue;
        }
        // A `]` matters only before `<` (or at a delta's end, where the next may be one).
        const nsStart = c === CLOSE_BRACKET && (j + 1 === n || s.charCodeAt(j + 1) === LT);
        if (c === LT || c === OPEN_BRACE || c === OPEN_BRACKET || nsStart) {
          if (!code) break;
        } else if (c === BACKTICK) break;
        // `functools` only where the reply starts, as FireFunction writes it.
        else if (c === LOWER_F && this.atStart && s.slice(from, j).trim() === "") break;
      }
      this.inInlineCode = inline;
    }
    if (j > from) this.emitText(s.slice(from, j));
    if (j < n) {
      this.state = State.Match;
      this.lit = s.charAt(j);
      this.matchCloser = null;
      return j + 1;
    }
    return j;
  }

  private scanJson(s: string, from: number): number {
    const n = s.length;
    // Every container with a closing tag or fence ends its body there, braces closed or not.
    const closer = this.container?.kind === "bare" ? null : (this.container?.closer ?? null);
    const scanner = this.scanner;
    // A `<tool_call>` inside a call's unfinished JSON: the model abandoned it and started again.
    const reopen = this.container?.kind === "tool_call" ? TOOL_CALL_OPEN : null;
    let j = from;
    let closed = false;
    let cut = false;
    for (; j < n; j++) {
      const c = s.charCodeAt(j);
      if (reopen !== null && scanner.inString === 0) {
        if (c === reopen.charCodeAt(this.reopenAt)) {
          if (++this.reopenAt === reopen.length) {
            this.parts.push(s.slice(from, j + 1));
            const raw = this.parts.join("");
            this.parts = [];
            this.reopenAt = 0;
            this.emitText(this.leadRaw + raw.slice(0, raw.length - reopen.length));
            this.leadRaw = reopen;
            this.state = State.Lead;
            return j + 1;
          }
        } else this.reopenAt = c === reopen.charCodeAt(0) ? 1 : 0;
      }
      if (closer !== null && scanner.inString === 0) {
        if (c === closer.charCodeAt(this.closerAt)) {
          if (++this.closerAt === closer.length) {
            cut = true;
            j++;
            break;
          }
          continue;
        }
        this.closerAt = c === closer.charCodeAt(0) ? 1 : 0;
      }
      if (scanner.step(c)) {
        closed = true;
        j++;
        break;
      }
    }
    this.parts.push(s.slice(from, j));
    if (cut && closer !== null) {
      const raw = this.parts.join("");
      this.finishJson(raw.slice(0, raw.length - closer.length), closer);
    } else if (closed) this.finishJson(this.parts.join(""), "");
    return j;
  }

  private scanRegion(s: string, at: number): number {
    const closer = this.container?.closer ?? "";
    const first = closer.charCodeAt(0);
    const n = s.length;
    let j = at;
    let cut = false;
    const start = this.container?.start;
    if (start !== undefined && this.regionLength === 0) {
      // Before the body's first character: whitespace goes to the opener, a character start refuses ends the region.
      while (j < n && isSpace(s.charAt(j))) this.leadRaw += s.charAt(j++);
      if (j === n) return j;
      if (!start.test(s.charAt(j))) {
        this.giveBack(this.leadRaw);
        return j;
      }
    }
    // The whitespace just read went to the opener; the body starts here.
    const from = j;
    for (; j < n; j++) {
      const c = s.charCodeAt(j);
      if (c === closer.charCodeAt(this.closerAt)) {
        if (++this.closerAt === closer.length) {
          cut = true;
          j++;
          break;
        }
      } else this.closerAt = c === first ? 1 : 0;
    }
    this.parts.push(s.slice(from, j));
    this.regionLength += j - from;
    if (cut) {
      const raw = this.parts.join("");
      this.finishRegion(raw.slice(0, raw.length - closer.length), closer);
    } else if (this.container?.kind === "harmony-header" && this.regionLength > MAX_HEADER) {
      this.giveBack(this.leadRaw + this.parts.join(""));
      this.parts = [];
    } else if (this.container?.head !== undefined && !this.headSeen) {
      // Before the first `>` the body is at most MAX_LITERAL long, so joining it again is bounded.
      const text = this.parts.join("");
      const end = text.indexOf(">");
      if (end >= 0 && this.container.head.test(text)) this.headSeen = true;
      else if (end >= 0 || text.length > MAX_LITERAL) {
        // A code block of real XML: text now, not held back to its closing fence.
        this.giveBack(this.leadRaw + text);
        this.parts = [];
      }
    }
    return j;
  }

  /** One character in a character state; false when it must be read again. */
  private step(ch: string): boolean {
    switch (this.state) {
      case State.Match:
        this.stepMatch(ch);
        return true;
      case State.Lead:
        return this.stepLead(ch);
      case State.Name:
        return this.stepName(ch);
      case State.Trailer:
        return this.stepTrailer(ch);
      default:
        return false;
    }
  }

  private classify(lit: string): MatchResult {
    if (lit.length > MAX_LITERAL) return NONE;
    if (this.reasoning) {
      let partial = false;
      for (const closer of this.reasoningClosers) {
        if (lit === closer) return closer === HARMONY_START ? { kind: "open", container: HARMONY_HEADER } : { kind: "think-close" };
        if (closer.startsWith(lit)) partial = true;
      }
      return partial ? PARTIAL : NONE;
    }
    if (this.inCodeBlock) return lit === "```" ? { kind: "code-end" } : "```".startsWith(lit) ? PARTIAL : NONE;
    let partial = false;
    const closer = this.matchCloser;
    if (closer !== null) {
      if (closer !== "" && lit === closer) return { kind: "closer" };
      // A model that ends its call with `</think>` where `</tool_call>` belongs.
      if (closer === TOOL_CALL.closer && lit === THINK_CLOSE) return { kind: "closer" };
      partial = closer !== "" && closer.startsWith(lit);
    }
    for (const [literal, result] of LITERALS_BY_FIRST.get(lit.charAt(0)) ?? []) {
      if (literal === lit) return result;
      if (literal.startsWith(lit)) partial = true;
    }
    const first = lit.charAt(0);
    const special =
      first === "<" ? functionTag(lit) : first === "`" ? fence(lit) : first === "{" || first === "[" ? jsonHead(lit) : NONE;
    if (special.kind !== "none") return special;
    if (first === "[") {
      const pythonic = pythonicHead(lit);
      if (pythonic.kind !== "none") return pythonic;
    }
    return partial ? PARTIAL : NONE;
  }

  private stepMatch(ch: string): void {
    this.lit += ch;
    const result = this.classify(this.lit);
    if (result.kind === "partial") return;
    const lit = this.lit;
    this.lit = "";
    this.state = State.Text;
    const closesCall = result.kind === "closer" || (result.kind === "bare" && this.matchCloser !== null);
    if (closesCall) {
      this.matchCloser = null;
      this.trailerSpace = "";
      this.container = null;
    } else if (this.matchCloser !== null) this.leaveTrailer();
    if (result.kind === "closer") return;
    if (result.kind === "think-open" && result.atStartOnly === true && !this.atStart) {
      // Prose that names the opener: text, read on from its second character.
      this.emitText(lit.charAt(0));
      this.feed(lit.slice(1));
      return;
    }
    if (result.kind === "open" && this.reasoning) {
      // `<|start|>` ended an analysis message that left out its `<|end|>`.
      this.reasoning = false;
      this.reasoningClosers = [THINK_CLOSE];
    }
    switch (result.kind) {
      case "none":
        // Not a trigger: its first character is text, the rest is read again.
        this.emitText(lit.charAt(0));
        this.feed(lit.slice(1));
        return;
      case "think-open":
        this.reasoning = true;
        this.reasoningClosers = [result.closer];
        return;
      case "think-close":
        if (!this.reasoning) this.closedUnopenedReasoning = true;
        this.reasoning = false;
        this.reasoningClosers = [THINK_CLOSE];
        return;
      case "drop":
        return;
      case "code-start":
        this.emitText(lit);
        this.inCodeBlock = true;
        return;
      case "code-end":
        this.emitText(lit);
        this.inCodeBlock = false;
        return;
      case "inline-code":
        this.emitText(lit.charAt(0));
        this.inInlineCode = true;
        this.feed(lit.slice(1));
        return;
      case "open":
        this.container = result.container;
        this.leadRaw = lit;
        if (result.container.kind === "pythonic") this.startJsonWith(lit);
        else if (result.container.region !== undefined || result.container.kind === "harmony-header") this.startRegion();
        else this.state = State.Lead;
        return;
      case "bare":
        this.container = BARE;
        this.startJsonWith(lit);
        return;
    }
  }

  private stepLead(ch: string): boolean {
    const c = this.container;
    if (c === null) return this.resumeText();
    if (isSpace(ch) && this.leadRaw.length < MAX_LEAD) {
      this.leadRaw += ch;
      return true;
    }
    const named = c.name !== undefined || c.kind === "function";
    if (ch === "{" || (ch === "[" && !named)) {
      this.startJson();
      return false;
    }
    // A fence holding a tag around the JSON (```xml then <response>): read whole up to the closing fence.
    if (c.kind === "fence" && ch === "<") {
      this.container = { ...c, region: callsFromFencedTag, head: FENCED_CALL_TAG };
      this.startRegion();
      return false;
    }
    // Qwen3-Coder's `<function=`, MiniMax M3's `<invoke` and the namespace token before it.
    if (c.kind === "tool_call" && (ch === "<" || ch === "]")) {
      this.startRegion();
      return false;
    }
    // Qwen3-Coder's `<function=NAME>` then `<parameter=`, without `<tool_call>` around it.
    if (c.kind === "function" && c.closer === "</function>" && c.name !== undefined && ch === "<") {
      this.container = { ...c, region: callsFromBareFunction(c.name) };
      this.startRegion();
      return false;
    }
    // GLM's bare tool name, alone on its line; words after the tag are prose, read again as such.
    if (c.kind === "tool_call" && isKeyChar(ch)) {
      this.nameBuf = ch;
      this.state = State.Name;
      return true;
    }
    if (c.kind === "mistral" && !named && /^[\w.-]$/.test(ch)) {
      this.nameBuf = ch;
      this.state = State.Name;
      return true;
    }
    this.giveBack(this.leadRaw);
    return false;
  }

  private stepName(ch: string): boolean {
    const c = this.container;
    if (c === null) return this.resumeText();
    if (c.kind === "tool_call") return this.stepGlmName(c, ch);
    if (ch === "{") {
      // v11+: `name[ARGS]`, and `name[CALL_ID]id[ARGS]` where the call carries its id.
      const name = this.nameBuf.trim().replace(/\s*(?:\[CALL_ID\][\w-]*)?\s*\[ARGS\]$/, "");
      if (/^[\w.-]+$/.test(name)) {
        this.container = { ...c, name };
        this.leadRaw += this.nameBuf;
        this.startJson();
      } else this.giveBack(this.leadRaw + this.nameBuf);
      return false;
    }
    if (/^[\w.\-[\] ]$/.test(ch) && this.nameBuf.length < MAX_NAME) {
      this.nameBuf += ch;
      return true;
    }
    this.giveBack(this.leadRaw + this.nameBuf);
    return false;
  }

  /**
   * `<tool_call>NAME` then a line end or `<` (GLM's `<arg_key>`, or `</tool_call>` for no
   * arguments): the body is read whole. Anything else after the name (a space, punctuation)
   * makes it prose: the tag is text, and the name is read again, so that a JSON call after a
   * few words inside the tags is still found. At most MAX_NAME characters are read twice.
   */
  private stepGlmName(c: Container, ch: string): boolean {
    if (/^[\w.-]$/.test(ch) && this.nameBuf.length < MAX_NAME) {
      this.nameBuf += ch;
      return true;
    }
    const name = this.nameBuf;
    this.nameBuf = "";
    if (ch === "\n" || ch === "\r" || ch === "<") {
      this.container = c;
      this.startRegion();
      this.parts.push(name);
      this.regionLength = name.length;
      return false;
    }
    this.giveBack(this.leadRaw);
    this.feed(name);
    return false;
  }

  private stepTrailer(ch: string): boolean {
    const c = this.container;
    if (c === null) return this.resumeText();
    if (isSpace(ch)) {
      this.trailerSpace += ch;
      return true;
    }
    if (c.closer !== null && ch === c.closer.charAt(0)) {
      this.state = State.Match;
      this.lit = ch;
      this.matchCloser = c.closer;
      return true;
    }
    if ((c.kind === "tool_call" || c.kind === "wrapper") && (ch === "{" || ch === "[")) {
      // Several JSON calls inside one block.
      this.trailerSpace = "";
      this.leadRaw = "";
      this.startJson();
      return false;
    }
    if (c.kind === "python_tag" && ch === ";") {
      this.trailerSpace = "";
      this.leadRaw = ch;
      this.state = State.Lead;
      return true;
    }
    if (c.kind === "bare") {
      // Llama 3 separates parallel calls with "; ": separators between calls are not text.
      if (ch === ";") {
        this.trailerSpace += ch;
        return true;
      }
      if (ch === "{" || ch === "[") {
        this.state = State.Match;
        this.lit = ch;
        this.matchCloser = "";
        return true;
      }
    }
    this.leaveTrailer();
    return this.resumeText();
  }

  /**
   * LFM2 often writes its call block's body again after the end token, capped with a second end
   * token (vLLM's LFM2 parser drops it too). Text after the block is held while it still
   * repeats the body (whitespace allowed before the body and before the end token); a whole
   * repeat and its end token are dropped, and the next echo looked for. The first character
   * that differs gives the held text back to be read as usual, so text after a call waits at
   * most the body's length, and each character is held back here at most once.
   */
  private scanEcho(s: string, at: number): number {
    const echo = this.echoOf;
    const n = s.length;
    let from = at;
    let j = at;
    while (j < n) {
      const c = s.charCodeAt(j);
      if (c === echo.charCodeAt(this.echoAt)) {
        j++;
        if (++this.echoAt === echo.length) {
          this.dropEcho();
          from = j;
        }
        continue;
      }
      const gap = this.echoAt === 0 || this.echoAt === this.echoBodyEnd;
      if (gap && isSpace(s.charAt(j)) && this.echoHeldLength + (j - from) < echo.length + MAX_LEAD) {
        j++;
        continue;
      }
      this.echoHeld.push(s.slice(from, j));
      const held = this.echoHeld.join("");
      this.dropEcho();
      this.state = State.Text;
      this.feed(held);
      return j;
    }
    this.echoHeld.push(s.slice(from, j));
    this.echoHeldLength += j - from;
    return j;
  }

  private dropEcho(): void {
    this.echoHeld = [];
    this.echoHeldLength = 0;
    this.echoAt = 0;
  }

  private startJson(): void {
    this.scanner.reset();
    this.parts = [];
    this.closerAt = 0;
    this.reopenAt = 0;
    this.state = State.Json;
  }

  /** A JSON or pythonic body whose first characters were read as the trigger literal. */
  private startJsonWith(lit: string): void {
    this.leadRaw = "";
    this.startJson();
    for (let k = 0; k < lit.length; k++) this.scanner.step(lit.charCodeAt(k));
    this.parts.push(lit);
  }

  private startRegion(): void {
    this.parts = [];
    this.closerAt = 0;
    this.regionLength = 0;
    this.headSeen = false;
    this.state = State.Xml;
  }

  private finishJson(raw: string, closerText: string): void {
    const c = this.container ?? BARE;
    const calls = this.callsIn(raw, c);
    this.parts = [];
    if (calls === undefined) {
      this.emitText(this.leadRaw + raw + closerText);
      // A fenced block that held no call is a code block: its closing fence is text too.
      this.inCodeBlock = c.kind === "fence" && closerText === "";
      this.container = null;
      this.state = State.Text;
      return;
    }
    this.emitCalls(calls);
    const trailer = closerText === "" && (c.closer !== null || c.kind === "python_tag" || c.kind === "bare");
    this.container = trailer ? c : null;
    this.trailerSpace = "";
    this.state = trailer ? State.Trailer : State.Text;
  }

  private callsIn(raw: string, c: Container): ParsedToolCall[] | undefined {
    if (c.name === undefined && looksPythonic(raw)) {
      const calls = callsFromPythonic(raw);
      return calls !== undefined && acceptable(calls.map((call) => ({ ...call, explicit: true })), c.tagged, this.tools) ? calls : undefined;
    }
    const value = parseLooseJson(raw);
    return value === undefined ? undefined : callsFromValue(value, { presetName: c.name, tagged: c.tagged, tools: this.tools });
  }

  private finishRegion(body: string, closerText: string): void {
    const c = this.container;
    this.parts = [];
    if (c?.kind === "harmony-header") {
      this.finishHarmonyHeader(body, closerText);
      return;
    }
    const calls = (c?.region ?? callsFromToolCallBody)(body, this.tools);
    this.container = null;
    this.state = State.Text;
    if (calls === undefined) this.emitText(this.leadRaw + body + closerText);
    else {
      this.emitCalls(calls);
      if (c?.closer === LFM2.close && closerText !== "") {
        const repeated = body.trimEnd();
        this.echoOf = repeated + closerText;
        this.echoBodyEnd = repeated.length;
        this.dropEcho();
        this.state = State.Echo;
      }
      // Qwen3-Coder's call written without its opening `<tool_call>` still ends with the closing one.
      if (c?.kind === "function" && closerText !== "") {
        this.container = ORPHAN_TOOL_CALL_CLOSER;
        this.trailerSpace = "";
        this.state = State.Trailer;
      }
    }
  }

  /** After `<|message|>`: a call's JSON follows, or reasoning (the analysis channel), or text. */
  private finishHarmonyHeader(header: string, closerText: string): void {
    const read = readHarmonyHeader(header);
    this.container = null;
    this.state = State.Text;
    if (read === undefined) this.emitText(this.leadRaw + header + closerText);
    else if (read.kind === "call") {
      this.container = { kind: "function", tagged: true, closer: "<|call|>", name: read.name };
      this.leadRaw += header + closerText;
      this.state = State.Lead;
    } else if (read.kind === "reasoning") {
      this.reasoning = true;
      this.reasoningClosers = HARMONY_REASONING_CLOSERS;
    }
  }

  private emitCalls(calls: ParsedToolCall[]): void {
    for (const call of calls) {
      this.out.push({ type: "tool-call", name: call.name, arguments: typedBySchema(call.arguments, this.tools?.schemas.get(call.name)) });
    }
  }

  /** An opener that led to no call: its text goes out as text and reading resumes. */
  private giveBack(text: string): void {
    this.emitText(text);
    if (this.container?.kind === "fence") this.inCodeBlock = true;
    this.container = null;
    this.state = State.Text;
  }

  private leaveTrailer(): void {
    const space = this.trailerSpace;
    this.trailerSpace = "";
    this.matchCloser = null;
    this.container = null;
    if (space !== "") this.emitText(space);
  }

  private resumeText(): boolean {
    this.state = State.Text;
    return false;
  }

  private emitText(text: string): void {
    if (text === "") return;
    if (this.atStart && text.trim() !== "") this.atStart = false;
    const type = this.reasoning ? "reasoning" : "text";
    const last = this.out[this.out.length - 1];
    if (last !== undefined && last.type === type) last.text += text;
    else this.out.push({ type, text });
  }
}

export function createToolCallParser(options: ToolCallParserOptions = {}): ToolCallParser {
  return new StreamParser(options);
}

/** Reasoning openers and their closers, to tell a message that started inside a block. */
const THINK_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ["<think>", THINK_CLOSE],
  ["<mm:think>", MM_THINK_CLOSE],
  [XTML.thinkOpen, XTML.thinkClose],
];

/** Whether the `</think>` at `at` stands inside a `<tool_call>` still open there: a misplaced closer, not reasoning's end. */
function closesToolCall(text: string, at: number): boolean {
  const open = text.lastIndexOf(TOOL_CALL_OPEN, at);
  if (open < 0) return false;
  const close = text.indexOf("</tool_call>", open);
  return close < 0 || close > at;
}

/**
 * A whole message at once, through the same machine. A message that closes a reasoning block
 * it never opened started inside one (the template opened it), unless told otherwise.
 */
export function parseToolCalls(text: string, options: ToolCallParserOptions = {}): ParsedMessage {
  const startInReasoning = options.startInReasoning ?? THINK_PAIRS.some(([opener, closer]) => {
    const close = text.indexOf(closer);
    const open = text.indexOf(opener);
    return close >= 0 && (open < 0 || close < open) && !closesToolCall(text, close);
  });
  const parser = createToolCallParser({ ...options, startInReasoning });
  const result: ParsedMessage = { calls: [], content: "", reasoning: "" };
  for (const event of [...parser.push(text), ...parser.end()]) {
    if (event.type === "text") result.content += event.text;
    else if (event.type === "reasoning") result.reasoning += event.text;
    else result.calls.push({ name: event.name, arguments: event.arguments });
  }
  return result;
}
