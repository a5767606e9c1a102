import type { JsonSchema } from "../types.js";
import { isRecord } from "./deref.js";

/** Meta keywords no provider needs and some refuse (Gemini rejects `$schema`). */
const META_KEYS = ["$schema", "$id", "$comment"];

/**
 * Every provider wants a tool's parameters as an object schema with `properties`, and
 * OpenAI and Anthropic refuse combinators at the root. MCP servers send what their schema
 * library made: sometimes no `type`, sometimes a root `anyOf` of object shapes, sometimes
 * nothing. This makes the root `{"type":"object","properties":{...}}`, merging root
 * branches: a property any branch defines is offered; it is required when every branch of
 * an anyOf/oneOf (or any branch of an allOf) requires it.
 */
export function objectRoot(schema: JsonSchema | undefined): JsonSchema {
  const source: JsonSchema = isRecord(schema) ? schema : {};
  const root: JsonSchema = {};
  for (const [key, value] of Object.entries(source)) {
    if (!META_KEYS.includes(key) && key !== "anyOf" && key !== "oneOf" && key !== "allOf") root[key] = value;
  }
  const properties: Record<string, unknown> = isRecord(source.properties) ? { ...source.properties } : {};
  const required = new Set(stringList(source.required));

  const merge = (branches: unknown, everyBranch: boolean) => {
    if (!Array.isArray(branches) || branches.length === 0) return;
    const objectBranches = branches.filter(isRecord);
    for (const branch of objectBranches) {
      if (!isRecord(branch.properties)) continue;
      for (const [name, prop] of Object.entries(branch.properties)) if (!(name in properties)) properties[name] = prop;
    }
    const lists = objectBranches.map((b) => stringList(b.required));
    const names = everyBranch
      ? (lists[0] ?? []).filter((name) => lists.every((list) => list.includes(name)))
      : lists.flat();
    for (const name of names) required.add(name);
  };
  merge(source.allOf, false);
  merge(source.anyOf, true);
  merge(source.oneOf, true);

  root.type = "object";
  root.properties = properties;
  const requiredKnown = [...required].filter((name) => name in properties);
  if (requiredKnown.length > 0) root.required = requiredKnown;
  else delete root.required;
  return root;
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
