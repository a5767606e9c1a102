import type { ToolSearchSettings } from "../agent/tool-offer.js";
import type { ToolSearchConfig } from "../config/schema.js";
import { createEmbedder } from "../llm/embeddings.js";
import { EmbeddingRanker } from "../toolcall/tool-search.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The config's `tools.search` as the agent takes it: "auto" when absent, the embedding endpoint connected. */
export function toolSearchSettings(config: ToolSearchConfig | undefined, env: Env): ToolSearchSettings {
  if (config === undefined) return { mode: "auto" };
  if (typeof config === "string") return { mode: config };
  const { mode = "auto", embeddings, ...rest } = config;
  if (embeddings === undefined) return { mode, ...rest };
  const apiKey = embeddings.apiKeyEnv === undefined ? undefined : env[embeddings.apiKeyEnv];
  const embed = createEmbedder({ baseURL: embeddings.baseURL, model: embeddings.model, ...(apiKey !== undefined ? { apiKey } : {}) });
  return { mode, ...rest, embeddings: new EmbeddingRanker(embed) };
}
