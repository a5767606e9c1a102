/**
 * Kimi K3's XTML tool channel: `<|open|>tools<|sep|>`, then per call
 * `<|open|>call tool="NAME" index="N"<|sep|>`, its arguments, `<|close|>call<|sep|>`, then
 * `<|close|>tools<|sep|>`. Each argument says its JSON type:
 * `<|open|>argument key="K" type="string|number|boolean|null|object|array"<|sep|>TEXT<|close|>argument<|sep|>`,
 * a string's text as it is and anything else as JSON; a call may instead carry its whole
 * arguments object in `<|open|>json type="object"<|sep|>{...}<|close|>json<|sep|>`.
 * Attribute values escape `&` and `"`. (Moonshot's encoding_k3.py, as vLLM's kimi_k3 parser
 * and mlx-lm read it.)
 */
import { jsonOrText, parseLooseJson, typeOf, xmlValue, type KnownTools, type ParsedToolCall } from "./call-shape.js";

export const XTML = {
  open: "<|open|>tools<|sep|>",
  close: "<|close|>tools<|sep|>",
  thinkOpen: "<|open|>think<|sep|>",
  thinkClose: "<|close|>think<|sep|>",
  responseOpen: "<|open|>response<|sep|>",
  responseClose: "<|close|>response<|sep|>",
  messageClose: "<|close|>message<|sep|>",
  endOfMessage: "<|end_of_msg|>",
} as const;

const NAME = /^[\w.:-]{1,200}$/;
const CALL = /<\|open\|>call ([^<]*?)<\|sep\|>([\s\S]*?)<\|close\|>call<\|sep\|>/g;
const PART = /<\|open\|>(argument|json) ([^<]*?)<\|sep\|>([\s\S]*?)<\|close\|>\1<\|sep\|>/g;
const ATTR = /(\w+)="([^"]*)"/g;

/** `&quot;` first, then `&amp;`: the reverse of the escaping order. */
const unescape = (value: string): string => value.replace(/&quot;/g, '"').replace(/&amp;/g, "&");

function attributes(text: string): Map<string, string> {
  return new Map([...text.matchAll(ATTR)].map((m) => [m[1] ?? "", unescape(m[2] ?? "")]));
}

/**
 * The declared type decides; with none, the tool's schema does. A declared non-string is JSON
 * as written: text that is not JSON stays text rather than being repaired into some value.
 */
function argumentValue(text: string, declared: string | undefined, schemaType: unknown): unknown {
  if (declared === "string") return text;
  if (declared !== undefined) return jsonOrText(text, true);
  return xmlValue(text, schemaType);
}

function readCall(header: string, body: string, tools: KnownTools | undefined): ParsedToolCall | undefined {
  const name = attributes(header).get("tool") ?? "";
  if (!NAME.test(name) || body.replace(PART, "").trim() !== "") return undefined;
  const schema = tools?.schemas.get(name);
  let args: Record<string, unknown> = {};
  for (const m of body.matchAll(PART)) {
    const attrs = attributes(m[2] ?? "");
    const text = m[3] ?? "";
    if (m[1] === "json") {
      const value = parseLooseJson(text);
      if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
      args = { ...args, ...(value as Record<string, unknown>) };
      continue;
    }
    const key = attrs.get("key");
    if (key === undefined) return undefined;
    args[key] = argumentValue(text, attrs.get("type"), typeOf(schema, key));
  }
  return { name, arguments: args };
}

/** The body of a tools channel; undefined when anything in it is not a well-formed call. */
export function callsFromXtml(body: string, tools: KnownTools | undefined): ParsedToolCall[] | undefined {
  if (body.replace(CALL, "").trim() !== "") return undefined;
  const calls: ParsedToolCall[] = [];
  for (const m of body.matchAll(CALL)) {
    const call = readCall(m[1] ?? "", m[2] ?? "", tools);
    if (call === undefined) return undefined;
    calls.push(call);
  }
  return calls.length > 0 ? calls : undefined;
}

/** The XTML type of a JSON value, as the encoder writes it. */
export function xtmlType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean" || typeof value === "object" ? typeof value : "string";
}
