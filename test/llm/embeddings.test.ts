import { afterEach, describe, expect, it } from "vitest";
import { createEmbedder } from "../../src/llm/embeddings.js";
import { EmbeddingRanker, ToolSearchIndex } from "../../src/toolcall/tool-search.js";
import { listenScripted, type ScriptedServer } from "../support/scripted-server.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** An OpenAI-compatible /v1/embeddings that answers out of order, as the API allows: a vector per input, by its words. */
async function embeddingsServer(): Promise<ScriptedServer> {
  server = await listenScripted(async (request, res) => {
    const inputs = request.body.input as string[];
    const vector = (text: string): number[] => [/weather|forecast|rain/i.test(text) ? 1 : 0, /file|folder/i.test(text) ? 1 : 0, 0.1];
    const data = inputs.map((text, index) => ({ object: "embedding", index, embedding: vector(text) })).reverse();
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ object: "list", data, model: request.body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
  });
  return server;
}

describe("embeddings for tool search", () => {
  it("asks the endpoint for the model's vectors in batches and ranks tools by meaning", async () => {
    const s = await embeddingsServer();
    const embed = createEmbedder({ baseURL: `${s.url}/v1`, model: "bge-small" });
    const tools = [
      { name: "read_text_file", description: "Read a file from disk.", parameters: { type: "object" } },
      { name: "get_outlook", description: "What the sky does in the coming days.", parameters: { type: "object" } },
    ];
    const index = new ToolSearchIndex(tools, new EmbeddingRanker(embed));
    expect((await index.search("will it rain tomorrow", 1))[0]).toBe("get_outlook");
    expect(s.requests[0]?.body).toMatchObject({ model: "bge-small", input: ["will it rain tomorrow", expect.stringContaining("read_text_file"), expect.stringContaining("get_outlook")] });
    // Tools are embedded once; the next search sends only its query.
    await index.search("forecast", 1);
    expect(s.requests[1]?.body.input).toEqual(["forecast"]);
  });
});
