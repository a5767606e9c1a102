/**
 * The `invoke` markup several families write inside their call region, each under its own
 * prefix: DeepSeek V3.2/V4/V4.1 DSML (`<｜DSML｜invoke name="N">` with
 * `<｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>`; V4.1 puts a space
 * after the marker, and the marker is also seen with ASCII bars), MiniMax M2
 * (`<invoke name="N"><parameter name="K">V</parameter></invoke>`), StepFun step3
 * (`<steptml:invoke ...>`), and MiniMax M3, whose parameters are elements named for
 * themselves (`<invoke name="N"><city>Paris</city></invoke>`, nested objects as nested
 * elements, lists as `<item>`s). Values are typed by the tool's schema when it is known.
 */
import { jsonOrText, typeOf, xmlValue, type KnownTools, type ParsedToolCall, type RegionParser } from "./call-shape.js";

const NAME = /^[\w.:-]{1,200}$/;

/** The reader for one prefix, a regular-expression source ("" for MiniMax, "steptml:", DSML's marker in all its spellings). */
export function invokeReader(prefix: string): RegionParser {
  const invoke = new RegExp(`<${prefix}invoke name="([^"]*)"\\s*>([\\s\\S]*?)</${prefix}invoke>`, "g");
  const parameter = new RegExp(`<${prefix}parameter name="([^"]*)"([^>]*)>([\\s\\S]*?)</${prefix}parameter>`, "g");
  return (body, tools) => {
    // Whatever is not an invoke must be whitespace, or this is prose that used the tags.
    if (body.replace(invoke, "").trim() !== "") return undefined;
    const calls: ParsedToolCall[] = [];
    for (const m of body.matchAll(invoke)) {
      const name = m[1] ?? "";
      const inner = m[2] ?? "";
      if (!NAME.test(name) || inner.replace(parameter, "").trim() !== "") return undefined;
      const schema = tools?.schemas.get(name);
      const args: Record<string, unknown> = {};
      for (const p of inner.matchAll(parameter)) {
        const key = p[1] ?? "";
        args[key] = parameterValue(p[3] ?? "", p[2] ?? "", typeOf(schema, key));
      }
      calls.push({ name, arguments: args });
    }
    return calls.length > 0 ? calls : undefined;
  };
}

/** A value some clients' models wrap as `<![CDATA[...]]>`. */
const CDATA = /^<!\[CDATA\[([\s\S]*)\]\]>$/;

/** DSML says whether a value is a string (`string="true"`) or JSON (`string="false"`); the schema has the last word. */
function parameterValue(raw: string, attrs: string, type: unknown): unknown {
  const text = CDATA.exec(raw)?.[1] ?? raw;
  const stringAttr = /\bstring="(true|false)"/.exec(attrs)?.[1];
  if (type !== undefined || stringAttr === undefined) return xmlValue(text, type);
  return stringAttr === "true" ? text : jsonOrText(text);
}

/** MiniMax M3's namespace token, written before every tag of a call (and dropped by servers that skip special tokens). */
export const MINIMAX_NS = "]<]minimax[>[";

/** Nesting deeper than this is not read as elements: the text stays a string. */
const MAX_DEPTH = 32;
const OPEN_TAG = /<([A-Za-z_][\w.:-]{0,199})>/y;
const INVOKE_TAG = /<invoke name="([^"]*)"\s*>/y;

type Scalar = (text: string) => unknown;
interface Read {
  value: unknown;
  end: number;
}

function skipSpace(s: string, i: number): number {
  for (let c = s.charCodeAt(i); c === 32 || c === 10 || c === 9 || c === 13; c = s.charCodeAt(++i));
  return i;
}

/** Elements up to `close`: a list when every one is an `<item>`, an object otherwise. */
function readChildren(s: string, at: number, close: string, depth: number): Read | undefined {
  const entries: Array<[string, unknown]> = [];
  let i = at;
  for (;;) {
    i = skipSpace(s, i);
    if (s.startsWith(close, i)) {
      const value = entries.length > 0 && entries.every(([k]) => k === "item") ? entries.map(([, v]) => v) : grouped(entries);
      return { value, end: i + close.length };
    }
    OPEN_TAG.lastIndex = i;
    const open = OPEN_TAG.exec(s);
    if (open === null) return undefined;
    const name = open[1] ?? "";
    const child = readElement(s, OPEN_TAG.lastIndex, name, depth + 1, nestedScalar);
    if (child === undefined) return undefined;
    entries.push([name, child.value]);
    i = child.end;
  }
}

/**
 * Elements as an object, a name written more than once (`<tag>a</tag><tag>b</tag>`) as the
 * list of its values in order, as M3's `to_xml` writes a list under a repeated key.
 */
function grouped(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const values = new Map<string, unknown[]>();
  for (const [k, v] of entries) {
    const list = values.get(k);
    if (list === undefined) values.set(k, [v]);
    else list.push(v);
  }
  return Object.fromEntries([...values].map(([k, list]) => [k, list.length === 1 ? list[0] : list]));
}

/** The value of `<name>` whose content starts at `at`: child elements, or text up to `</name>`. */
function readElement(s: string, at: number, name: string, depth: number, scalar: Scalar): Read | undefined {
  const close = `</${name}>`;
  const j = skipSpace(s, at);
  if (depth < MAX_DEPTH && s.charAt(j) === "<" && s.charAt(j + 1) !== "/") {
    const children = readChildren(s, j, close, depth);
    if (children !== undefined) return children;
  }
  const end = s.indexOf(close, at);
  return end < 0 ? undefined : { value: scalar(s.slice(at, end).trim()), end: end + close.length };
}

const nestedScalar: Scalar = (text) => xmlValue(text, undefined);

/** The body of an M3 call region: `<invoke>`s and nothing else, the namespace tokens dropped. */
export function callsFromMiniMaxM3(region: string, tools: KnownTools | undefined): ParsedToolCall[] | undefined {
  const body = region.split(MINIMAX_NS).join("");
  const calls: ParsedToolCall[] = [];
  let i = skipSpace(body, 0);
  while (i < body.length) {
    INVOKE_TAG.lastIndex = i;
    const m = INVOKE_TAG.exec(body);
    const name = m?.[1] ?? "";
    if (m === null || !NAME.test(name)) return undefined;
    const schema = tools?.schemas.get(name);
    const params: Array<[string, unknown]> = [];
    let j = INVOKE_TAG.lastIndex;
    for (;;) {
      j = skipSpace(body, j);
      if (body.startsWith("</invoke>", j)) break;
      OPEN_TAG.lastIndex = j;
      const open = OPEN_TAG.exec(body);
      if (open === null) return undefined;
      const key = open[1] ?? "";
      const type = typeOf(schema, key);
      // A string parameter is text even when it holds markup.
      const param = readElement(body, OPEN_TAG.lastIndex, key, type === "string" ? MAX_DEPTH : 1, (text) => xmlValue(text, type));
      if (param === undefined) return undefined;
      params.push([key, param.value]);
      j = param.end;
    }
    calls.push({ name, arguments: grouped(params) });
    i = skipSpace(body, j + "</invoke>".length);
  }
  return calls.length > 0 ? calls : undefined;
}
