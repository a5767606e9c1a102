/**
 * The `invoke`/`parameter` markup several families write inside their call region, each
 * under its own prefix: DeepSeek V3.2/V4 DSML (`<｜DSML｜invoke name="N">` with
 * `<｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>`), MiniMax M2
 * (`<invoke name="N"><parameter name="K">V</parameter></invoke>`) and StepFun step3
 * (`<steptml:invoke ...>`). Values are typed by the tool's schema when it is known.
 */
import { parseLooseJson, typeOf, xmlValue, type ParsedToolCall } from "./call-shape.js";
import type { RegionParser } from "./call-regions.js";

const NAME = /^[\w.:-]{1,200}$/;

/** The reader for one prefix ("" for MiniMax, "｜DSML｜", "steptml:"). */
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

/** DSML says whether a value is a string (`string="true"`) or JSON (`string="false"`); the schema has the last word. */
function parameterValue(text: string, attrs: string, type: unknown): unknown {
  const stringAttr = /\bstring="(true|false)"/.exec(attrs)?.[1];
  if (type !== undefined || stringAttr === undefined) return xmlValue(text, type);
  return stringAttr === "true" ? text : (parseLooseJson(text) ?? text);
}
