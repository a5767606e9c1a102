/**
 * Pythonic tool calls, as Llama 3.2/3.3/4 write them: a Python list of calls with keyword
 * arguments, `[get_weather(city='Paris', days=3), get_time()]`. Read with a small recursive
 * descent over Python literals (strings, numbers, True/False/None, lists, tuples, dicts),
 * never evaluated. Anything else (positional arguments, expressions, names) is not a call.
 */
import type { ParsedToolCall } from "./call-shape.js";

/** How deep literals may nest before the text is refused (hostile input). */
const MAX_DEPTH = 64;

class PyReader {
  i = 0;
  constructor(private readonly s: string) {}

  space(): void {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || c === 10 || c === 9 || c === 13) this.i++;
      else return;
    }
  }

  peek(): string {
    this.space();
    return this.s.charAt(this.i);
  }

  eat(ch: string): boolean {
    if (this.peek() !== ch) return false;
    this.i++;
    return true;
  }

  atEnd(): boolean {
    this.space();
    return this.i >= this.s.length;
  }

  identifier(): string | undefined {
    this.space();
    const m = /^[A-Za-z_][\w.-]*/.exec(this.s.slice(this.i, this.i + 256));
    if (m === null) return undefined;
    this.i += m[0].length;
    return m[0];
  }

  value(depth: number): { ok: true; value: unknown } | { ok: false } {
    if (depth > MAX_DEPTH) return { ok: false };
    const ch = this.peek();
    if (ch === "'" || ch === '"') return this.string(ch);
    if (ch === "[" || ch === "(") return this.sequence(ch === "[" ? "]" : ")", depth);
    if (ch === "{") return this.dict(depth);
    // Models trained on JSON write its literals in Python calls too (`f(a=true, b=null)`).
    const word = /^(?:True|False|None|true|false|null|[-+]?(?:\d[\d_]*\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?))/.exec(
      this.s.slice(this.i, this.i + 64),
    );
    if (word === null) return { ok: false };
    this.i += word[0].length;
    const w = word[0];
    if (w === "True" || w === "true") return { ok: true, value: true };
    if (w === "False" || w === "false") return { ok: true, value: false };
    if (w === "None" || w === "null") return { ok: true, value: null };
    const n = Number(w.replace(/_/g, ""));
    return Number.isFinite(n) ? { ok: true, value: n } : { ok: false };
  }

  private string(quote: string): { ok: true; value: string } | { ok: false } {
    const s = this.s;
    const triple = s.startsWith(quote.repeat(3), this.i);
    const end = triple ? quote.repeat(3) : quote;
    this.i += end.length;
    let out = "";
    while (this.i < s.length) {
      // Copy the run up to the next quote, backslash or line break in one slice.
      let j = this.i;
      while (j < s.length) {
        const c = s.charCodeAt(j);
        if (c === 92 || c === 10 || c === quote.charCodeAt(0)) break;
        j++;
      }
      out += s.slice(this.i, j);
      this.i = j;
      if (j >= s.length) break;
      if (s.startsWith(end, this.i)) {
        this.i += end.length;
        return { ok: true, value: out };
      }
      const c = s.charAt(this.i);
      if (c === "\\") {
        const next = s.charAt(this.i + 1);
        const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0" };
        if (next in simple) {
          out += simple[next];
          this.i += 2;
        } else if ((next === "u" || next === "x") && /^[0-9a-fA-F]+$/.test(s.slice(this.i + 2, this.i + (next === "u" ? 6 : 4)))) {
          const len = next === "u" ? 4 : 2;
          out += String.fromCharCode(parseInt(s.slice(this.i + 2, this.i + 2 + len), 16));
          this.i += 2 + len;
        } else {
          out += c;
          this.i++;
        }
        continue;
      }
      // A line break in a one-line string is invalid Python, but the call region bounds the
      // text, so it is kept as the multi-line shell command it usually is.
      out += c;
      this.i++;
    }
    return { ok: false };
  }

  private sequence(close: string, depth: number): { ok: true; value: unknown[] } | { ok: false } {
    this.i++;
    const items: unknown[] = [];
    while (!this.eat(close)) {
      const v = this.value(depth + 1);
      if (!v.ok) return { ok: false };
      items.push(v.value);
      if (!this.eat(",") && this.peek() !== close) return { ok: false };
    }
    return { ok: true, value: items };
  }

  /** A dict, or a set literal (`{'a', 'b'}`), which JSON can only hold as a list. */
  private dict(depth: number): { ok: true; value: Record<string, unknown> | unknown[] } | { ok: false } {
    const start = this.i;
    this.i++;
    const out: Record<string, unknown> = {};
    while (!this.eat("}")) {
      const k = this.value(depth + 1);
      if (!k.ok || (typeof k.value !== "string" && typeof k.value !== "number")) return { ok: false };
      if (!this.eat(":")) return Object.keys(out).length === 0 ? this.set(start, depth) : { ok: false };
      const v = this.value(depth + 1);
      if (!v.ok) return { ok: false };
      out[String(k.value)] = v.value;
      if (!this.eat(",") && this.peek() !== "}") return { ok: false };
    }
    return { ok: true, value: out };
  }

  private set(start: number, depth: number): { ok: true; value: unknown[] } | { ok: false } {
    this.i = start;
    return this.sequence("}", depth);
  }
}

function readCall(r: PyReader): ParsedToolCall | undefined {
  const name = r.identifier();
  if (name === undefined || !r.eat("(")) return undefined;
  const args: Record<string, unknown> = {};
  while (!r.eat(")")) {
    const key = r.identifier();
    if (key === undefined || !r.eat("=")) return undefined;
    const v = r.value(0);
    if (!v.ok) return undefined;
    args[key] = v.value;
    if (!r.eat(",") && r.peek() !== ")") return undefined;
  }
  return { name, arguments: args };
}

/** Whether a call region's text is a pythonic call list rather than JSON: `[name(`. */
export function looksPythonic(text: string): boolean {
  return /^\s*\[\s*[A-Za-z_][\w.-]*\s*\(/.test(text);
}

/** The calls of `[f(a=1), g()]`, or undefined when the text is not exactly such a list. */
export function callsFromPythonic(text: string): ParsedToolCall[] | undefined {
  const r = new PyReader(text);
  if (!r.eat("[")) return undefined;
  const calls: ParsedToolCall[] = [];
  while (!r.eat("]")) {
    const call = readCall(r);
    if (call === undefined) return undefined;
    calls.push(call);
    if (!r.eat(",") && r.peek() !== "]") return undefined;
  }
  return calls.length > 0 && r.atEnd() ? calls : undefined;
}

/**
 * The calls of `f(a=1)\ng()`: bare calls one after another, as OLMo 3 writes them in
 * `<function_calls>` (and LFM2 when it leaves out the list's brackets, commas between).
 */
export function callsFromPythonLines(text: string): ParsedToolCall[] | undefined {
  const r = new PyReader(text);
  const calls: ParsedToolCall[] = [];
  while (!r.atEnd()) {
    const call = readCall(r);
    if (call === undefined) return undefined;
    calls.push(call);
    r.eat(",");
  }
  return calls.length > 0 ? calls : undefined;
}

/** A JSON value as a Python literal, as prompts write earlier calls back (`True`, `None`, `{"k": 1}`). */
export function pythonValue(value: unknown): string {
  if (value === true) return "True";
  if (value === false) return "False";
  if (value === null || value === undefined) return "None";
  if (Array.isArray(value)) return `[${value.map(pythonValue).join(", ")}]`;
  if (typeof value === "object") {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonValue(v)}`).join(", ")}}`;
  }
  return JSON.stringify(value);
}
