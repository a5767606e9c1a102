import type { Schema } from "@google/genai";
import type { JsonSchema } from "../types.js";
import { inlineRefs, isRecord } from "./deref.js";
import { objectRoot, stringList } from "./object-root.js";

/**
 * Tool parameters for Gemini's `functionDeclarations`.
 *
 * The first choice is `parameters`: Gemini's OpenAPI-3.0 subset, accepted by every Gemini
 * model and by Vertex. It refuses `$schema`, `$ref`, `additionalProperties`, `const`,
 * `oneOf`, type arrays and more, and a few shapes outright: an OBJECT without properties,
 * an ARRAY without items, an enum on anything but STRING, `required` naming an unknown
 * property. So references are inlined, `const` becomes a one-value enum, `[T, "null"]` and
 * null branches become `nullable`, `oneOf` becomes `anyOf`, `allOf` is merged, non-string
 * enums and defaults and unsupported formats move into the description, the rest is dropped.
 *
 * A few schemas cannot be said in that subset without changing what the tool accepts (a
 * free-form object, an untyped value, a tuple). Those tools go as `parametersJsonSchema`,
 * the JSON Schema field newer models take, with references inlined and meta keys removed:
 * never a schema the API refuses, and never one that lies about the tool.
 */
export type GeminiParameters = { parameters?: Schema } | { parametersJsonSchema: JsonSchema };

export function toGeminiParameters(schema: JsonSchema | undefined): GeminiParameters {
  const root = objectRoot(inlineRefs(schema ?? {}));
  // Gemini refuses an OBJECT without properties even at the root: a tool without parameters sends none.
  if (Object.keys(root.properties as object).length === 0) return {};
  const state = { lossy: false };
  const parameters = convert(root, state);
  if (state.lossy) return { parametersJsonSchema: stripMetaKeys(root) as JsonSchema };
  return { parameters };
}

const STRING_FORMATS = new Set(["enum", "date-time"]);
const NUMBER_FORMATS = new Set(["float", "double"]);
const INTEGER_FORMATS = new Set(["int32", "int64"]);
const GEMINI_TYPES = { string: "STRING", number: "NUMBER", integer: "INTEGER", boolean: "BOOLEAN", array: "ARRAY", object: "OBJECT" } as const;
type JsonType = keyof typeof GEMINI_TYPES;

interface State {
  lossy: boolean;
}

function convert(input: unknown, state: State): Schema {
  if (!isRecord(input)) {
    // `true` or garbage: any value, which the subset cannot say.
    state.lossy = true;
    return {};
  }
  const node = mergeAllOf(input);
  const notes: string[] = [];
  const out: Schema = {};
  let nullable = false;

  const branches = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (branches) {
    const nonNull = branches.filter((b) => !(isRecord(b) && b.type === "null"));
    nullable = nonNull.length < branches.length;
    const rest = omit(node, ["anyOf", "oneOf"]);
    if (nonNull.length === 1) {
      // `X | null`: the one real branch, nullable, with the outer description.
      const merged = convert({ ...(isRecord(nonNull[0]) ? nonNull[0] : {}), ...rest }, state);
      if (nullable) merged.nullable = true;
      return merged;
    }
    if (nonNull.length > 1 && !nonNull.every(isConstraintOnly)) {
      out.anyOf = nonNull.map((b) => convert(b, state));
      return finish(out, node, notes, nullable);
    }
    // Branches that only add constraints (`required` alternatives) cannot be said: the base shape stands.
  }

  const declared = Array.isArray(node.type) ? node.type : typeof node.type === "string" ? [node.type] : [];
  if (declared.includes("null")) nullable = true;
  const types = declared.filter((t): t is string => typeof t === "string" && t !== "null");
  if (types.length > 1) {
    out.anyOf = types.map((t) => convert({ ...omit(node, ["description", "title", "default"]), type: t }, state));
    return finish(out, node, notes, nullable);
  }
  const type = (types[0] ?? inferType(node)) as JsonType | undefined;
  if (!type || !(type in GEMINI_TYPES)) {
    state.lossy = true;
    return finish(out, node, notes, nullable);
  }
  out.type = GEMINI_TYPES[type] as Schema["type"];

  const values = Array.isArray(node.enum) ? node.enum : node.const !== undefined ? [node.const] : undefined;
  if (values) {
    if (values.includes(null)) nullable = true;
    const nonNull = values.filter((v) => v !== null);
    if (type === "string" || nonNull.every((v) => typeof v === "string")) {
      out.type = "STRING" as Schema["type"];
      out.enum = nonNull.map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
    } else {
      notes.push(`Allowed values: ${nonNull.map((v) => JSON.stringify(v)).join(", ")}.`);
    }
  }

  switch (type) {
    case "object": {
      const props = isRecord(node.properties) ? node.properties : {};
      if (Object.keys(props).length === 0) {
        state.lossy = true;
        break;
      }
      out.properties = Object.fromEntries(Object.entries(props).map(([name, prop]) => [name, convert(prop, state)]));
      const required = stringList(node.required).filter((name) => name in props);
      if (required.length > 0) out.required = required;
      copyNumbers(out, node, ["minProperties", "maxProperties"]);
      break;
    }
    case "array": {
      if (!isRecord(node.items)) {
        state.lossy = true;
        break;
      }
      out.items = convert(node.items, state);
      copyNumbers(out, node, ["minItems", "maxItems"]);
      break;
    }
    case "string":
      copyFormat(out, node, STRING_FORMATS, notes);
      copyNumbers(out, node, ["minLength", "maxLength"]);
      if (typeof node.pattern === "string") out.pattern = node.pattern;
      break;
    case "number":
    case "integer":
      copyFormat(out, node, type === "number" ? NUMBER_FORMATS : INTEGER_FORMATS, notes);
      copyNumbers(out, node, ["minimum", "maximum"]);
      break;
    case "boolean":
      break;
  }
  if (node.default !== undefined) notes.push(`Default: ${JSON.stringify(node.default)}.`);
  return finish(out, node, notes, nullable);
}

function finish(out: Schema, node: Record<string, unknown>, notes: string[], nullable: boolean): Schema {
  const base = typeof node.description === "string" ? node.description : typeof node.title === "string" ? node.title : "";
  const description = [base, ...notes].filter(Boolean).join(" ");
  if (description) out.description = description;
  if (nullable) out.nullable = true;
  return out;
}

function inferType(node: Record<string, unknown>): string | undefined {
  if (isRecord(node.properties)) return "object";
  if (node.items !== undefined) return "array";
  const values = Array.isArray(node.enum) ? node.enum : node.const !== undefined ? [node.const] : undefined;
  if (values && values.every((v) => typeof v === "string" || v === null)) return "string";
  return undefined;
}

/** An anyOf/oneOf branch that names no shape of its own, e.g. `{"required": ["a"]}`. */
function isConstraintOnly(branch: unknown): boolean {
  if (!isRecord(branch)) return false;
  return !["type", "properties", "items", "enum", "const", "anyOf", "oneOf", "allOf"].some((k) => k in branch);
}

/** allOf: one schema holding every branch's keywords; properties and required combined. */
function mergeAllOf(node: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(node.allOf)) return node;
  const merged: Record<string, unknown> = omit(node, ["allOf"]);
  const properties: Record<string, unknown> = isRecord(node.properties) ? { ...node.properties } : {};
  const required = new Set(stringList(node.required));
  for (const raw of node.allOf) {
    if (!isRecord(raw)) continue;
    const branch = mergeAllOf(raw);
    for (const [key, value] of Object.entries(branch)) {
      if (key === "properties" && isRecord(value)) Object.assign(properties, value);
      else if (key === "required") stringList(value).forEach((name) => required.add(name));
      else if (!(key in merged)) merged[key] = value;
    }
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.size > 0) merged.required = [...required];
  return merged;
}

function copyFormat(out: Schema, node: Record<string, unknown>, allowed: Set<string>, notes: string[]): void {
  if (typeof node.format !== "string") return;
  if (allowed.has(node.format)) out.format = node.format;
  else notes.push(`Format: ${node.format}.`);
}

function copyNumbers(out: Schema, node: Record<string, unknown>, keys: readonly string[]): void {
  const target = out as Record<string, unknown>;
  for (const key of keys) {
    const value = node[key];
    // The API's int64 fields (minItems, maxLength, ...) take JSON numbers as well as strings.
    if (typeof value === "number" && Number.isFinite(value)) target[key] = value;
  }
}

function omit(node: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) if (!keys.includes(key)) out[key] = value;
  return out;
}

function stripMetaKeys(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripMetaKeys);
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema" || key === "$id" || key === "$comment") continue;
    out[key] = key === "enum" || key === "const" || key === "default" ? value : stripMetaKeys(value);
  }
  return out;
}
