/**
 * Gemma's call notation: `call:NAME{key:value,...}`, as Gemma 4 writes it inside
 * `<|tool_call>`...`<tool_call|>` and FunctionGemma inside `<start_function_call>`...
 * `<end_function_call>`. Strings sit between a delimiter token (Gemma 4's `<|"|>`,
 * FunctionGemma's `<escape>`), so they may hold any character; keys are bare or delimited;
 * objects `{}`, arrays `[]`, and bare numbers, true, false and null. Read with one linear
 * pass, never evaluated; anything else is not a call.
 */
import type { ParsedToolCall } from "./call-shape.js";

/** How deep values may nest before the text is refused (hostile input). */
const MAX_DEPTH = 64;
const CALL = /^\s*call:([\w.:-]{1,200})\s*\{/;
/** A key written without delimiters: nothing the notation itself uses. */
const BARE_KEY = /^[^\s:,{}[\]]{1,200}$/;

class GemmaReader {
  i = 0;
  constructor(
    private readonly s: string,
    private readonly quote: string,
  ) {}

  private space(): void {
    while (this.i < this.s.length && /\s/.test(this.s.charAt(this.i))) this.i++;
  }

  /** A delimited string, or undefined when none starts here. An unclosed one runs to the end. */
  private quoted(): string | undefined {
    if (!this.s.startsWith(this.quote, this.i)) return undefined;
    const start = this.i + this.quote.length;
    const end = this.s.indexOf(this.quote, start);
    this.i = end < 0 ? this.s.length : end + this.quote.length;
    return this.s.slice(start, end < 0 ? this.s.length : end);
  }

  /** A bare word up to the next separator: a number, true, false, null, or else text. */
  private bare(): unknown {
    const start = this.i;
    while (this.i < this.s.length && !",}]".includes(this.s.charAt(this.i))) this.i++;
    const word = this.s.slice(start, this.i).trim();
    if (word === "true") return true;
    if (word === "false") return false;
    if (word === "null") return null;
    return /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(word) ? Number(word) : word;
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) return undefined;
    this.space();
    const text = this.quoted();
    if (text !== undefined) return text;
    const c = this.s.charAt(this.i);
    if (c === "{") {
      this.i++;
      return this.object(depth + 1);
    }
    if (c === "[") {
      this.i++;
      return this.array(depth + 1);
    }
    return this.bare();
  }

  /** The members of an object whose `{` was read, up to and including its `}`. */
  object(depth: number): Record<string, unknown> | undefined {
    const out: Record<string, unknown> = {};
    for (;;) {
      this.space();
      if (this.s.charAt(this.i) === "}") {
        this.i++;
        return out;
      }
      let key = this.quoted();
      if (key === undefined) {
        const m = /^[^\s:,{}[\]]{1,200}/.exec(this.s.slice(this.i, this.i + 201));
        if (m === null) return undefined;
        key = m[0];
        this.i += key.length;
      }
      this.space();
      if (this.s.charAt(this.i) !== ":") return undefined;
      this.i++;
      const value = this.value(depth);
      if (value === undefined) return undefined;
      out[key] = value;
      this.space();
      if (this.s.charAt(this.i) === ",") this.i++;
      else if (this.s.charAt(this.i) !== "}") return undefined;
    }
  }

  private array(depth: number): unknown[] | undefined {
    const out: unknown[] = [];
    for (;;) {
      this.space();
      if (this.s.charAt(this.i) === "]") {
        this.i++;
        return out;
      }
      if (this.i >= this.s.length) return undefined;
      const value = this.value(depth);
      if (value === undefined) return undefined;
      out.push(value);
      this.space();
      if (this.s.charAt(this.i) === ",") this.i++;
      else if (this.s.charAt(this.i) !== "]") return undefined;
    }
  }

  rest(): string {
    return this.s.slice(this.i).trim();
  }
}

/** One or more `call:NAME{...}` in a call region's body; `quote` is the family's string delimiter. */
export function callsFromGemma(body: string, quote: string): ParsedToolCall[] | undefined {
  const calls: ParsedToolCall[] = [];
  let rest = body;
  while (rest.trim() !== "") {
    const head = CALL.exec(rest);
    if (head === null) return undefined;
    const reader = new GemmaReader(rest, quote);
    reader.i = head[0].length;
    const args = reader.object(1);
    if (args === undefined) return undefined;
    calls.push({ name: head[1] ?? "", arguments: args });
    rest = reader.rest();
  }
  return calls.length > 0 ? calls : undefined;
}

/** A value in Gemma's notation, as prompts write earlier calls and results back. */
export function gemmaValue(value: unknown, quote: string): string {
  if (typeof value === "string") return `${quote}${value}${quote}`;
  if (Array.isArray(value)) return `[${value.map((v) => gemmaValue(v, quote)).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const key = (k: string): string => (BARE_KEY.test(k) && !k.includes(quote) ? k : `${quote}${k}${quote}`);
    return `{${Object.entries(value).map(([k, v]) => `${key(k)}:${gemmaValue(v, quote)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}
