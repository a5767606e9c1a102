/**
 * From the text of one recognised call region to tool calls: loose JSON parsing (jsonrepair
 * as the fallback), the key shapes models use for a call, and the checks that keep JSON
 * which merely looks like data from becoming a call.
 */
import { jsonrepair } from "jsonrepair";
import type { JsonSchema, ToolDefinition } from "../llm/types.js";

export interface ParsedToolCall {
  name: string;
  /** Always an object: a call whose arguments are not an object is not taken as a call. */
  arguments: Record<string, unknown>;
}

/** The tools calls may use: full definitions, or only their names. */
export type ToolList = ReadonlyArray<ToolDefinition | string>;

export interface KnownTools {
  names: ReadonlySet<string>;
  schemas: ReadonlyMap<string, JsonSchema>;
}

/** Reads the tool calls in the text of one recognised region; undefined when it holds none. */
export type RegionParser = (body: string, tools: KnownTools | undefined) => ParsedToolCall[] | undefined;

export function knownTools(tools: ToolList | undefined): KnownTools | undefined {
  if (tools === undefined) return undefined;
  const names = new Set<string>();
  const schemas = new Map<string, JsonSchema>();
  for (const tool of tools) {
    if (typeof tool === "string") names.add(tool);
    else {
      names.add(tool.name);
      schemas.set(tool.name, tool.parameters);
    }
  }
  return { names, schemas };
}

export interface Candidate extends ParsedToolCall {
  /** The call named its arguments with a key (`arguments`, `parameters`, ...), not just a name. */
  explicit: boolean;
}

type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const nonEmptyString = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);

/** JSON.parse, then jsonrepair for what models break (trailing commas, single quotes, unquoted keys, unclosed braces). */
export function parseLooseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    try {
      return JSON.parse(jsonrepair(text));
    } catch {
      return undefined;
    }
  }
}

function argumentsObject(raw: unknown): JsonObject | undefined {
  if (raw === undefined || raw === null) return {};
  if (isObject(raw)) return raw;
  if (typeof raw === "string") {
    if (raw.trim() === "") return {};
    const parsed = parseLooseJson(raw);
    return isObject(parsed) ? parsed : undefined;
  }
  return undefined;
}

/** A tool definition printed by the model (name, description, JSON-schema parameters) is not a call. */
function looksLikeDefinition(o: JsonObject, args: unknown): boolean {
  return o.description !== undefined && isObject(args) && (isObject(args.properties) || args.type === "object");
}

function candidatesFrom(value: unknown, presetName: string | undefined): Candidate[] | undefined {
  if (presetName !== undefined) {
    return isObject(value) ? [{ name: presetName, arguments: value, explicit: true }] : undefined;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    const all: Candidate[] = [];
    for (const item of value) {
      const found = candidatesFrom(item, undefined);
      if (found === undefined) return undefined;
      all.push(...found);
    }
    return all;
  }
  if (!isObject(value)) return undefined;
  if (Array.isArray(value.tool_calls)) return candidatesFrom(value.tool_calls, undefined);
  // OpenAI's own shape, {"type": "function", "function": {"name", "arguments"}}.
  if (isObject(value.function)) return candidatesFrom(value.function, undefined);
  // DeepChat's prompt format, {"function_call": {"name", "arguments"}}.
  if (isObject(value.function_call)) return candidatesFrom(value.function_call, undefined);
  const name =
    nonEmptyString(value.name) ?? nonEmptyString(value.tool_name) ?? nonEmptyString(value.tool) ?? nonEmptyString(value.function);
  if (name === undefined) return undefined;
  const rawArgs = value.arguments ?? value.parameters ?? value.args ?? value.input;
  if (looksLikeDefinition(value, rawArgs)) return undefined;
  const args = argumentsObject(rawArgs);
  if (args === undefined) return undefined;
  return [{ name, arguments: args, explicit: rawArgs !== undefined }];
}

/**
 * The calls a parsed region holds, or undefined when it is not a call. `tagged` regions
 * (`<tool_call>`, `[TOOL_CALLS]`, `<|python_tag|>`) were marked as calls by the model, so an
 * unknown name still makes a call (the agent answers it with the valid names). Untagged JSON
 * must name a known tool when tools are given, and have the call key shape when not.
 */
export function callsFromValue(
  value: unknown,
  opts: { presetName?: string; tagged: boolean; tools: KnownTools | undefined },
): ParsedToolCall[] | undefined {
  const found = candidatesFrom(value, opts.presetName);
  if (found === undefined || !acceptable(found, opts.tagged, opts.tools)) return undefined;
  return found.map(({ name, arguments: args }) => ({ name, arguments: args }));
}

/** Calls found in an untagged region count only when they name known tools (or, with no tool list, name their arguments). */
export function acceptable(found: readonly Candidate[], tagged: boolean, tools: KnownTools | undefined): boolean {
  if (tagged) return true;
  return tools === undefined ? found.every((c) => c.explicit) : found.every((c) => tools.names.has(c.name));
}

/**
 * Arguments typed by the tool's schema where a value came as text of another type: a Python
 * `True` or a quoted number where the schema says boolean or number. Anything else is kept.
 */
export function typedBySchema(args: JsonObject, schema: JsonSchema | undefined): JsonObject {
  if (schema === undefined) return args;
  let out: JsonObject | undefined;
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== "string") continue;
    const typed = scalarOfType(value.trim(), typeOf(schema, key));
    if (typed === undefined) continue;
    out ??= { ...args };
    out[key] = typed;
  }
  return out ?? args;
}

function scalarOfType(text: string, type: unknown): boolean | number | undefined {
  if (type === "boolean") return /^(?:true|True|TRUE)$/.test(text) ? true : /^(?:false|False|FALSE)$/.test(text) ? false : undefined;
  if (type !== "number" && type !== "integer") return undefined;
  if (!/^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) && (type === "number" || Number.isInteger(n)) ? n : undefined;
}

export function typeOf(schema: JsonSchema | undefined, param: string): unknown {
  const props = schema?.properties;
  if (!isObject(props)) return undefined;
  const prop = props[param];
  return isObject(prop) ? prop.type : undefined;
}

/**
 * Text a format says is JSON (a typed parameter, DSML's `string="false"`): its value, `null`
 * included, or the text itself when it does not parse. `strict` takes JSON as it is, with no
 * repair, for formats that say a value's type outright and so mean text that is not JSON as text.
 */
export function jsonOrText(text: string, strict = false): unknown {
  if (strict) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  const value = parseLooseJson(text);
  return value === undefined ? text : value;
}

/** A parameter value written as XML text, typed by the tool's schema when it is known. */
export function xmlValue(text: string, type: unknown): unknown {
  if (type === "string") return text;
  if (type !== undefined) return jsonOrText(text);
  // Without a schema only strict JSON that is not a string (numbers, booleans, objects) is converted.
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "string" ? text : parsed;
  } catch {
    return text;
  }
}

const FUNCTION_RE = /<function=([^>\s]+)>([\s\S]*?)(?:<\/function>|$)/g;
const PARAMETER_RE = /<parameter=([^>\s]+)>\n?([\s\S]*?)\n?(?:<\/parameter>|(?=<parameter=)|(?=<\/function>)|$)/g;
/** Seed-OSS writes a value flush against its tags, so a newline next to them is the value's own. */
const FLUSH_PARAMETER_RE = /<parameter=([^>\s]+)>([\s\S]*?)(?:<\/parameter>|(?=<parameter=)|(?=<\/function>)|$)/g;

const GLM_NAME_RE = /^\s*([\w.:-]{1,200})\s*(?=<arg_key>|$)/;
const GLM_ARG_RE = /<arg_key>\s*([\s\S]*?)\s*<\/arg_key>\s*<arg_value>([\s\S]*?)<\/arg_value>/g;

/** GLM-4.5/4.6/4.7's body: `NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>...`. */
function callsFromGlmBody(body: string, tools: KnownTools | undefined): ParsedToolCall[] | undefined {
  const head = GLM_NAME_RE.exec(body);
  if (head === null) return undefined;
  const name = head[1] ?? "";
  const rest = body.slice(head[0].length);
  const schema = tools?.schemas.get(name);
  // Whatever is not a key/value pair must be whitespace, or this is prose that began with a word.
  if (rest.replace(GLM_ARG_RE, "").trim() !== "") return undefined;
  // A lone word in the tags (`like <tool_call>this</tool_call> shows`) is a call only when it names a tool.
  if (rest.trim() === "" && tools !== undefined && !tools.names.has(name)) return undefined;
  const args: JsonObject = {};
  for (const p of rest.matchAll(GLM_ARG_RE)) {
    const param = p[1] ?? "";
    args[param] = xmlValue(p[2] ?? "", typeOf(schema, param));
  }
  return [{ name, arguments: args }];
}

/**
 * The XML bodies inside `<tool_call>`: Qwen3-Coder's `<function=NAME><parameter=P>value</parameter>...</function>`,
 * or GLM's `NAME<arg_key>K</arg_key><arg_value>V</arg_value>`.
 */
export function callsFromXmlBody(body: string, tools: KnownTools | undefined, flush = false): ParsedToolCall[] | undefined {
  if (!/^\s*<function=/.test(body)) return callsFromGlmBody(body, tools);
  const parameterRe = flush ? FLUSH_PARAMETER_RE : PARAMETER_RE;
  // Words outside the tags (`<function=x> is how a call starts`) make it prose that shows the format.
  if (body.replace(FUNCTION_RE, "").trim() !== "") return undefined;
  const calls: ParsedToolCall[] = [];
  for (const fn of body.matchAll(FUNCTION_RE)) {
    const name = fn[1] ?? "";
    const schema = tools?.schemas.get(name);
    const inner = fn[2] ?? "";
    if (inner.replace(parameterRe, "").trim() !== "") return undefined;
    const args: JsonObject = {};
    for (const p of inner.matchAll(parameterRe)) {
      const param = p[1] ?? "";
      args[param] = xmlValue(p[2] ?? "", typeOf(schema, param));
    }
    calls.push({ name, arguments: args });
  }
  return calls.length > 0 ? calls : undefined;
}
