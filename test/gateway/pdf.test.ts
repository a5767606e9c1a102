import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import type { LlmConfig } from "../../src/config/schema.js";
import { toOpenAIMessages } from "../../src/llm/openai-messages.js";
import { startAnthropicServer } from "../support/anthropic-server.js";
import { startGeminiServer } from "../support/gemini-server.js";
import type { ScriptedServer } from "../support/scripted-server.js";
import { DEFAULT_VLLM_MODEL, startVllmServer } from "../support/vllm-server.js";
import { openaiClient, startHarness, type Harness } from "./harness.js";

/**
 * PDFs through the gateway, sent by the real SDKs (openai's Responses `input_file`, Anthropic's
 * Messages `document` blocks): what reaches each scripted upstream, and the one-line refusal
 * where the model server takes no PDF.
 */

let harness: Harness | undefined;
const upstreams: ScriptedServer[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await Promise.all(upstreams.splice(0).map((server) => server.close()));
});
const upstream = <T extends ScriptedServer>(server: T): T => {
  upstreams.push(server);
  return server;
};

// A tiny PDF's bytes; what is checked is that they arrive as sent.
const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n").toString("base64");
const PDF_FILE: OpenAI.Responses.ResponseInputFile = { type: "input_file", filename: "report.pdf", file_data: `data:application/pdf;base64,${PDF}` };

async function askResponses(h: Harness, model: string) {
  return openaiClient(h).responses.create({ model, input: [{ role: "user", content: [{ type: "input_text", text: "Summarise this." }, PDF_FILE] }] });
}

async function gatewayTo(llm: LlmConfig, options: { maxRequestBytes?: number } = {}): Promise<Harness> {
  harness = await startHarness({ llm, servers: {}, ...options });
  return harness;
}

describe("PDFs through the gateway", () => {
  it("sends a Responses input_file PDF to Anthropic as a base64 document block titled with its name", async () => {
    const anthropic = upstream(await startAnthropicServer({ replies: [{ text: "A report." }] }));
    const h = await gatewayTo({ provider: "anthropic", baseURL: anthropic.url, model: "claude-haiku-4-5", apiKey: "test-key" });
    expect((await askResponses(h, "claude-haiku-4-5")).output_text).toBe("A report.");
    expect(anthropic.requests[0]?.body.messages[0].content).toEqual([
      { type: "text", text: "Summarise this." },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF }, title: "report.pdf" },
    ]);
  });

  it("takes a chat completions client's file part as a PDF too, and refuses a malformed one in one line", async () => {
    const anthropic = upstream(await startAnthropicServer({ replies: [{ text: "A report." }] }));
    const h = await gatewayTo({ provider: "anthropic", baseURL: anthropic.url, model: "claude-haiku-4-5", apiKey: "test-key" });
    const file: OpenAI.Chat.ChatCompletionContentPart.File = { type: "file", file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${PDF}` } };
    const completion = await openaiClient(h).chat.completions.create({ model: "claude-haiku-4-5", messages: [{ role: "user", content: [{ type: "text", text: "Summarise this." }, file] }] });
    expect(completion.choices[0]?.message.content).toBe("A report.");
    expect(anthropic.requests[0]?.body.messages[0].content[1]).toEqual({ type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF }, title: "report.pdf" });
    const malformed = openaiClient(h).chat.completions.create({ model: "claude-haiku-4-5", messages: [{ role: "user", content: [{ type: "file", file: { file_data: 42 } } as unknown as OpenAI.Chat.ChatCompletionContentPart] }] });
    await expect(malformed).rejects.toMatchObject({ status: 400, message: expect.stringContaining("messages[0].content[0]: a file part takes {file: {file_data, file_id, filename}} as strings") });
  });

  it("sends it to OpenAI as a file part with file_data and the filename", async () => {
    const openai = upstream(await startVllmServer({ replies: [{ text: "A report." }] }));
    const h = await gatewayTo({ provider: "openai", baseURL: openai.url, model: DEFAULT_VLLM_MODEL, apiKey: "test-key" });
    expect((await askResponses(h, DEFAULT_VLLM_MODEL)).output_text).toBe("A report.");
    expect(openai.chatRequests[0]?.body.messages[0].content).toEqual([
      { type: "text", text: "Summarise this." },
      { type: "file", file: { file_data: `data:application/pdf;base64,${PDF}`, filename: "report.pdf" } },
    ]);
  });

  it("sends it to Gemini as inline data of type application/pdf", async () => {
    const gemini = upstream(await startGeminiServer({ replies: [{ text: "A report." }] }));
    const h = await gatewayTo({ provider: "gemini", baseURL: gemini.url, model: "gemini-2.5-flash", apiKey: "test-key" });
    expect((await askResponses(h, "gemini-2.5-flash")).output_text).toBe("A report.");
    expect(gemini.requests[0]?.body.contents[0].parts).toEqual([{ text: "Summarise this." }, { inlineData: { mimeType: "application/pdf", data: PDF } }]);
  });

  it("refuses a PDF for vLLM, whose chat API takes no file parts, with a one-line 400 naming the file, before any request", async () => {
    harness = await startHarness({ servers: {} });
    const error = await askResponses(harness, DEFAULT_VLLM_MODEL).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const message = (error as InstanceType<typeof OpenAI.BadRequestError>).message;
    expect(message).toContain("vllm cannot read [document report.pdf]: its chat API takes no file parts");
    expect(message).not.toContain("\n");
    expect(harness.upstream.chatRequests).toHaveLength(0);
  });

  it("refuses a PDF for Ollama as for vLLM, naming the file, and sends it to OpenAI-compatible servers of other kinds", () => {
    const messages = [{ role: "user" as const, content: [{ type: "document" as const, data: PDF, mimeType: "application/pdf", name: "report.pdf" }] }];
    expect(() => toOpenAIMessages(messages, "ollama")).toThrow("ollama cannot read [document report.pdf]: its chat API takes no file parts");
    expect(toOpenAIMessages(messages, "openai-compatible")[0]?.content).toEqual([{ type: "file", file: { file_data: `data:application/pdf;base64,${PDF}`, filename: "report.pdf" } }]);
  });

  it("forwards a PDF to a server of unknown kind, and its refusal comes back as one line", async () => {
    // Like vLLM, this server refuses a part type it does not parse.
    const other = upstream(
      await startVllmServer({
        respond: (body) =>
          JSON.stringify(body.messages).includes('"type":"file"') ? { kind: "error", status: 400, message: "Unknown part type: file" } : { text: "ok" },
      }),
    );
    const h = await gatewayTo({ provider: "openai-compatible", baseURL: other.url, model: DEFAULT_VLLM_MODEL });
    const error = await askResponses(h, DEFAULT_VLLM_MODEL).catch((e: unknown) => e);
    expect(other.chatRequests[0]?.body.messages[0].content[1]).toMatchObject({ type: "file", file: { filename: "report.pdf" } });
    const message = (error as InstanceType<typeof OpenAI.APIError>).message;
    expect(message).toContain("Unknown part type: file");
    expect(message).not.toContain("\n");
  });

  it("bounds a PDF by the gateway's request body limit", async () => {
    const anthropic = upstream(await startAnthropicServer({ replies: [] }));
    const h = await gatewayTo({ provider: "anthropic", baseURL: anthropic.url, model: "claude-haiku-4-5", apiKey: "test-key" }, { maxRequestBytes: 64 * 1024 });
    const big: OpenAI.Responses.ResponseInputFile = { ...PDF_FILE, file_data: `data:application/pdf;base64,${Buffer.alloc(100 * 1024).toString("base64")}` };
    const error = await openaiClient(h)
      .responses.create({ model: "claude-haiku-4-5", input: [{ role: "user", content: [big] }] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 413, message: expect.stringContaining("Request body larger than 65536 bytes (gateway.maxRequestBytes)") });
    expect(anthropic.requests).toHaveLength(0);
  });

  it("takes a Messages client's document block: on to Anthropic as it is, and refused for vLLM in one line naming it", async () => {
    const anthropic = upstream(await startAnthropicServer({ replies: [{ text: "A report." }] }));
    const h = await gatewayTo({ provider: "anthropic", baseURL: anthropic.url, model: "claude-haiku-4-5", apiKey: "test-key" });
    const sdk = new Anthropic({ baseURL: h.gateway.url, apiKey: "none", maxRetries: 0 });
    const document: Anthropic.DocumentBlockParam = { type: "document", source: { type: "base64", media_type: "application/pdf", data: PDF }, title: "report.pdf" };
    const message = await sdk.messages.create({ model: "claude-haiku-4-5", max_tokens: 256, messages: [{ role: "user", content: [document, { type: "text", text: "Summarise this." }] }] });
    expect(message.content).toEqual([{ type: "text", text: "A report." }]);
    expect(anthropic.requests[0]?.body.messages[0].content[0]).toEqual(document);
    // A PDF by URL is not fetched; the gateway says what it takes.
    const byUrl = sdk.messages.create({ model: "claude-haiku-4-5", max_tokens: 256, messages: [{ role: "user", content: [{ type: "document", source: { type: "url", url: "https://example.com/a.pdf" } }] }] });
    await expect(byUrl).rejects.toMatchObject({ status: 400, message: expect.stringContaining("messages[0].content[0]: the gateway fetches no document by URL; send a PDF as a base64 source, or text as a text source") });
    expect(anthropic.requests).toHaveLength(1);
    await harness?.close();

    harness = await startHarness({ servers: {} });
    const vllm = new Anthropic({ baseURL: harness.gateway.url, apiKey: "none", maxRetries: 0 });
    const refused = await vllm.messages.create({ model: DEFAULT_VLLM_MODEL, max_tokens: 256, messages: [{ role: "user", content: [document] }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ error: { type: "invalid_request_error", message: expect.stringContaining("vllm cannot read [document report.pdf]") } });
    expect(harness.upstream.chatRequests).toHaveLength(0);
  });

  it("takes a Messages client's text and content documents to any model as text, marked with their title and context", async () => {
    harness = await startHarness({ servers: {}, replies: [{ text: "Both summarised." }] });
    const sdk = new Anthropic({ baseURL: harness.gateway.url, apiKey: "none", maxRetries: 0 });
    const image = Buffer.from("not really a png").toString("base64");
    await sdk.messages.create({
      model: DEFAULT_VLLM_MODEL,
      max_tokens: 256,
      messages: [
        {
          role: "user",
          content: [
            { type: "document", source: { type: "text", media_type: "text/plain", data: "Sales rose 4%." }, title: "Q3 notes", context: "From the board meeting" },
            { type: "document", source: { type: "content", content: [{ type: "text", text: "Part one." }, { type: "image", source: { type: "base64", media_type: "image/png", data: image } }, { type: "text", text: "Part two." }] } },
            { type: "text", text: "Summarise both." },
          ],
        },
      ],
    });
    expect(harness.upstream.chatRequests[0]?.body.messages[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "\n<document>\nDocument: Q3 notes\nContext: From the board meeting\n\nSales rose 4%.\n</document>\n" },
        { type: "text", text: "\n<document>\nDocument\n\nPart one.\nPart two.\n</document>\n" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${image}` } },
        { type: "text", text: "Summarise both." },
      ],
    });
    // A text document is bounded as a text file is; a content document holds only text and images.
    const big = sdk.messages.create({ model: DEFAULT_VLLM_MODEL, max_tokens: 256, messages: [{ role: "user", content: [{ type: "document", source: { type: "text", media_type: "text/plain", data: "a".repeat(1024 * 1024 + 1) } }] }] });
    await expect(big).rejects.toMatchObject({ status: 400, message: expect.stringContaining("messages[0].content[0]: the document holds 1048577 bytes of text, more than the 1048576 a document may hold") });
    const odd = sdk.messages.create({
      model: DEFAULT_VLLM_MODEL,
      max_tokens: 256,
      messages: [{ role: "user", content: [{ type: "document", source: { type: "content", content: [{ type: "search_result" } as unknown as Anthropic.TextBlockParam] } }] }],
    });
    await expect(odd).rejects.toMatchObject({ status: 400, error: { error: { message: 'messages[0].content[0].source.content[0]: content blocks of type "search_result" are not supported' } } });
    expect(harness.upstream.chatRequests).toHaveLength(1);
  });
});
