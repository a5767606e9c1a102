import type { JsonSchema } from "../types.js";

/** Keys whose values are data, not schemas: never rewritten. */
const DATA_KEYS = new Set(["enum", "const", "default", "examples", "example"]);

/**
 * Replaces every local `$ref` (`#/$defs/X`, `#/definitions/X`, any `#/...` pointer) with the
 * schema it points to and drops the definition tables, for providers that cannot follow
 * references. A reference met again inside its own expansion (a recursive type) is cut to
 * an open schema carrying a note, so the result is finite; so is a reference that cannot
 * be resolved (remote, or pointing nowhere). Keywords beside a `$ref` win over the target's.
 */
export function inlineRefs(schema: JsonSchema): JsonSchema {
  const expand = (node: unknown, stack: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => expand(item, stack));
    if (!isRecord(node)) return node;
    const out: JsonSchema = {};
    const ref = typeof node.$ref === "string" ? node.$ref : undefined;
    if (ref !== undefined) {
      const target = resolvePointer(schema, ref);
      if (target === undefined || stack.includes(ref)) {
        const why = target === undefined ? "unresolved reference" : "recursive reference";
        out.description = `(${why} to ${refName(ref)}, not expanded)`;
      } else {
        Object.assign(out, expand(target, [...stack, ref]));
      }
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" || key === "$defs" || key === "definitions") continue;
      out[key] = DATA_KEYS.has(key) ? value : expand(value, stack);
    }
    return out;
  };
  return expand(schema, []) as JsonSchema;
}

function resolvePointer(root: JsonSchema, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isRecord(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
    if (node === undefined) return undefined;
  }
  return node;
}

function refName(ref: string): string {
  return ref.split("/").pop() || ref;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
