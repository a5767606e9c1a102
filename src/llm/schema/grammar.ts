import type { GbnfJsonSchema } from "node-llama-cpp";
import type { JsonSchema } from "../types.js";
import { inlineRefs, isRecord } from "./deref.js";
import { objectRoot } from "./object-root.js";

/**
 * A tool's parameters in the JSON Schema subset node-llama-cpp turns into a grammar, for the
 * local model: every value it lets the model write is one the tool's schema accepts.
 * References are inlined; `anyOf` and type lists become `oneOf`; `const`, `enum`, string and
 * array lengths and the date formats are kept; a value the subset cannot describe (an
 * `allOf`, an untyped value) may be any JSON. node-llama-cpp writes every property an object
 * lists, optional or not, and no others.
 */
export function toGrammarSchema(schema: JsonSchema | undefined): GbnfJsonSchema {
  return convert(objectRoot(inlineRefs(schema ?? {})));
}

const FORMATS = new Set(["date-time", "time", "date"]);

/** Any JSON value. */
const ANY: GbnfJsonSchema = { oneOf: [{ type: ["string", "number", "boolean", "null"] }, { type: "object", additionalProperties: true }, { type: "array" }] };

function convert(node: unknown): GbnfJsonSchema {
  if (!isRecord(node)) return ANY;
  const described = typeof node.description === "string" ? { description: node.description } : {};
  if ("const" in node) return isScalar(node.const) ? { const: node.const, ...described } : ANY;
  if (Array.isArray(node.enum)) {
    const values = node.enum.filter(isScalar);
    return values.length === node.enum.length && values.length > 0 ? { enum: values, ...described } : ANY;
  }
  const branches = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (branches && branches.length > 0) return { oneOf: branches.map(convert), ...described };
  if (Array.isArray(node.type)) return { oneOf: node.type.map((type) => convert({ ...node, type })), ...described };
  const type: unknown = node.type ?? (isRecord(node.properties) ? "object" : undefined);
  switch (type) {
    case "string":
      if (typeof node.format === "string" && FORMATS.has(node.format)) return { type: "string", format: node.format as "date" | "time" | "date-time", ...described };
      return { type: "string", ...whole(node, ["minLength", "maxLength"]), ...described };
    case "number":
    case "integer":
    case "boolean":
    case "null":
      return { type, ...described };
    case "array":
      return {
        type: "array",
        ...(node.items !== undefined ? { items: convert(node.items) } : {}),
        ...(Array.isArray(node.prefixItems) ? { prefixItems: node.prefixItems.map(convert) } : {}),
        ...whole(node, ["minItems", "maxItems"]),
        ...described,
      };
    case "object": {
      const properties = isRecord(node.properties) ? Object.fromEntries(Object.entries(node.properties).map(([key, value]) => [key, convert(value)])) : {};
      const extra = node.additionalProperties;
      // JSON Schema allows other keys unless told not to; a grammar with none listed must allow them to write anything.
      const additionalProperties = isRecord(extra) ? convert(extra) : extra === false ? false : Object.keys(properties).length === 0;
      return { type: "object", properties, additionalProperties, ...described };
    }
    default:
      return ANY;
  }
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/** The named keywords that hold whole non-negative numbers. */
function whole(node: Record<string, unknown>, keys: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of keys) {
    const value = node[key];
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) out[key] = value;
  }
  return out;
}
