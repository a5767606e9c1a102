/**
 * Embeddings from an OpenAI-compatible `/embeddings` endpoint (vLLM, Ollama, OpenAI, TEI):
 * tool search's optional second ranking reads its vectors through this.
 */
import { createOpenAIClient } from "./openai-compatible.js";

/** Inputs per embeddings request. */
const BATCH = 128;
const TIMEOUT_MS = 30_000;

export interface EmbeddingEndpoint {
  baseURL: string;
  model: string;
  apiKey?: string;
}

/** One vector per input, in the inputs' order. */
export type Embed = (inputs: readonly string[]) => Promise<number[][]>;

export function createEmbedder(endpoint: EmbeddingEndpoint): Embed {
  const client = createOpenAIClient(endpoint.baseURL, endpoint.apiKey, TIMEOUT_MS);
  return async (inputs) => {
    const out: number[][] = [];
    for (let i = 0; i < inputs.length; i += BATCH) {
      // Floats asked for explicitly: the SDK otherwise asks for base64, which not every server speaks.
      const response = await client.embeddings.create({ model: endpoint.model, input: inputs.slice(i, i + BATCH), encoding_format: "float" });
      out.push(...[...response.data].sort((a, b) => a.index - b.index).map((d) => d.embedding));
    }
    return out;
  };
}
