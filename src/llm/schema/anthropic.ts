import type { JsonSchema } from "../types.js";
import { objectRoot } from "./object-root.js";

/**
 * `input_schema` for the Messages API. Anthropic takes JSON Schema with `$ref`/`$defs`,
 * but the root must be `type: "object"` and may not be a oneOf/anyOf/allOf.
 */
export function toAnthropicInputSchema(schema: JsonSchema | undefined): JsonSchema & { type: "object" } {
  return objectRoot(schema) as JsonSchema & { type: "object" };
}
