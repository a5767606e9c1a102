import type { JsonSchema } from "../types.js";
import { inlineRefs } from "./deref.js";
import { objectRoot } from "./object-root.js";

export interface OpenAISchemaOptions {
  /**
   * Inline `$ref`s. OpenAI and vLLM follow references; some servers' tool templates and
   * grammar builders do not (Ollama reads only a fixed set of keywords), so the
   * Ollama adapter asks for it.
   */
  inlineRefs?: boolean;
}

/**
 * Tool parameters for the Chat Completions API: JSON Schema as the server sent it, with an
 * object root (a tool without parameters gets `{"type":"object","properties":{}}`, which
 * every OpenAI-compatible server accepts, unlike a missing or empty schema).
 */
export function toOpenAIParameters(schema: JsonSchema | undefined, options: OpenAISchemaOptions = {}): JsonSchema {
  const source = schema ?? {};
  return objectRoot(options.inlineRefs ? inlineRefs(source) : source);
}
