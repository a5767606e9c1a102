import { afterEach, describe, expect, it } from "vitest";
import { AnthropicModel } from "../../src/llm/anthropic.js";
import type { LlmError } from "../../src/llm/errors.js";
import { GeminiModel } from "../../src/llm/gemini.js";
import type { ChatRequest, Message, ToolDefinition } from "../../src/llm/types.js";
import { startAnthropicServer, type AnthropicScriptReply, type AnthropicServer } from "../support/anthropic-server.js";
import { startGeminiServer, type GeminiScriptReply, type GeminiServer } from "../support/gemini-server.js";
import { collect, failure } from "./collect.js";

const add: ToolDefinition = {
  name: "add",
  description: "Add two numbers",
  parameters: {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
    additionalProperties: false,
  },
};

const history: Message[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "What is 2 + 3?" },
  { role: "assistant", content: "Let me add.", toolCalls: [{ id: "toolu_1", name: "add", arguments: '{"a":2,"b":3}', signature: "sig-1" }] },
  { role: "tool", toolCallId: "toolu_1", name: "add", content: "5" },
];

const ask = (extra: Partial<ChatRequest> = {}): ChatRequest => ({ messages: history, tools: [add], ...extra });

let anthropic: AnthropicServer | undefined;
let gemini: GeminiServer | undefined;
afterEach(async () => {
  await anthropic?.close();
  await gemini?.close();
  anthropic = gemini = undefined;
});

async function anthropicModel(replies: AnthropicScriptReply[], extra: Record<string, unknown> = {}) {
  anthropic = await startAnthropicServer({ replies });
  return new AnthropicModel({ baseURL: anthropic.url, apiKey: "test-key", model: "claude-haiku-4-5", retry: { baseDelayMs: 1 }, ...extra });
}

async function geminiModel(replies: GeminiScriptReply[], extra: Record<string, unknown> = {}) {
  gemini = await startGeminiServer({ replies });
  return new GeminiModel({ baseURL: gemini.url, apiKey: "test-key", model: "gemini-2.5-flash", retry: { baseDelayMs: 1 }, ...extra });
}

describe("Anthropic adapter against a local Messages API server", () => {
  it("streams thinking, text and tool_use input deltas into reasoning, text and whole calls", async () => {
    const model = await anthropicModel([
      { thinking: "I should add them.", text: "Adding now.", toolUses: [{ name: "add", input: { a: 2, b: 3 }, id: "toolu_A" }, { name: "add", input: { a: 1, b: 1 } }], usage: { input_tokens: 40, output_tokens: 20 } },
    ]);
    const out = await collect(model.stream(ask()));
    expect(out.reasoning).toBe("I should add them.");
    expect(out.text).toBe("Adding now.");
    expect(out.calls.map((c) => [c.id, c.name, JSON.parse(c.arguments)])).toEqual([
      ["toolu_A", "add", { a: 2, b: 3 }],
      [expect.stringMatching(/^toolu_/), "add", { a: 1, b: 1 }],
    ]);
    expect(out.events.at(-2)).toEqual({ type: "usage", usage: { inputTokens: 40, outputTokens: 20, totalTokens: 60 } });
    expect(out.finish).toBe("tool-calls");
  });

  it("counts cached prompt tokens as input, from message_start and from a message_delta that restates them", async () => {
    const model = new AnthropicModel({ apiKey: "test-key", model: "claude-haiku-4-5", retry: { maxRetries: 0 } });
    const usage = (input: number | null, created: number | null, read: number | null, output: number) => ({
      input_tokens: input,
      cache_creation_input_tokens: created,
      cache_read_input_tokens: read,
      output_tokens: output,
    });
    const script = (delta: ReturnType<typeof usage>) => [
      { type: "message_start", message: { usage: usage(10, 100, 1000, 1) } },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: delta },
      { type: "message_stop" },
    ];
    const client = (model as unknown as { client: { messages: { create: () => Promise<AsyncIterable<unknown>> } } }).client;
    const replies = [script(usage(null, null, null, 7)), script(usage(20, null, 2000, 8))];
    client.messages.create = async () =>
      (async function* () {
        yield* replies.shift() ?? [];
      })();
    const first = await collect(model.stream(ask()));
    expect(first.events.at(-2)).toEqual({ type: "usage", usage: { inputTokens: 1110, outputTokens: 7, totalTokens: 1117 } });
    const second = await collect(model.stream(ask()));
    expect(second.events.at(-2)).toEqual({ type: "usage", usage: { inputTokens: 2020, outputTokens: 8, totalTokens: 2028 } });
  });

  it("sends input_schema, system, tool_use and tool_result blocks and the tool choice", async () => {
    const model = await anthropicModel([{ text: "5" }]);
    await collect(model.stream(ask({ toolChoice: "required" })));
    const body = anthropic?.requests[0]?.body;
    expect(anthropic?.requests[0]?.headers.authorization).toBe("Bearer test-key");
    expect(body.system).toBe("Be brief.");
    expect(body.max_tokens).toBe(4096);
    expect(body.stream).toBe(true);
    expect(body.tool_choice).toEqual({ type: "any" });
    expect(body.tools[0]).toEqual({
      name: "add",
      description: "Add two numbers",
      input_schema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"], additionalProperties: false },
    });
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "What is 2 + 3?" }] },
      { role: "assistant", content: [{ type: "text", text: "Let me add." }, { type: "tool_use", id: "toolu_1", name: "add", input: { a: 2, b: 3 } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "5" }] },
    ]);
  });

  it("converts a tool list once while the same list is offered, and anew for a new list", async () => {
    const model = new AnthropicModel({ apiKey: "test-key", model: "claude-haiku-4-5" });
    const tools = [add];
    const first = model.requestBody(ask({ tools })).tools;
    expect(model.requestBody(ask({ tools })).tools).toBe(first);
    const other = model.requestBody(ask({ tools: [add] })).tools;
    expect(other).not.toBe(first);
    expect(other).toEqual(first);
  });

  it("maps a named tool choice and none", async () => {
    const model = await anthropicModel([{ text: "a" }, { text: "b" }]);
    await collect(model.stream(ask({ toolChoice: { name: "add" } })));
    await collect(model.stream(ask({ toolChoice: "none" })));
    expect(anthropic?.requests.map((r) => r.body.tool_choice)).toEqual([{ type: "tool", name: "add" }, { type: "none" }]);
  });

  it("sends an image at a URL as a url source", () => {
    const model = new AnthropicModel({ apiKey: "test-key", model: "claude-haiku-4-5" });
    const body = model.requestBody({ messages: [{ role: "user", content: [{ type: "image-url", url: "https://images.example/cat.png" }] }] });
    expect(body.messages[0]?.content).toEqual([{ type: "image", source: { type: "url", url: "https://images.example/cat.png" } }]);
  });

  it("asks for interleaved thinking on the Claude 4 models the documentation names, with a budget and tools, keeping a configured beta", async () => {
    const thinking = { enabled: true, budgetTokens: 1024 };
    const model = (id: string, headers?: Record<string, string>) => new AnthropicModel({ apiKey: "test-key", model: id, ...(headers ? { headers } : {}) });
    expect(model("claude-sonnet-4-5").betaHeader(ask({ thinking }))).toBe("interleaved-thinking-2025-05-14");
    expect(model("claude-opus-4-1", { "Anthropic-Beta": "context-1m-2025-08-07" }).betaHeader(ask({ thinking }))).toBe("context-1m-2025-08-07,interleaved-thinking-2025-05-14");
    expect(model("claude-3-7-sonnet-latest").betaHeader(ask({ thinking }))).toBeUndefined();
    expect(model("claude-sonnet-4-5").betaHeader(ask({ thinking: { enabled: true } }))).toBeUndefined();
    expect(model("claude-sonnet-4-5").betaHeader(ask({ thinking, tools: [] }))).toBeUndefined();
    expect(model("claude-sonnet-4-5").betaHeader(ask({ thinking: { ...thinking, interleaved: false } }))).toBeUndefined();
    expect(model("claude-3-7-sonnet-latest").betaHeader(ask({ thinking: { enabled: true, interleaved: true } }))).toBe("interleaved-thinking-2025-05-14");
  });

  it("streams redacted thinking as opaque data, in order with the thinking around it", async () => {
    const model = await anthropicModel([{ blocks: [{ thinking: "One." }, { redacted: "opaque" }, { thinking: "Two." }, { text: "Done." }] }]);
    const events = [];
    for await (const event of model.stream(ask())) events.push(event);
    expect(events.filter((event) => event.type.startsWith("reasoning")).map((event) => ("data" in event ? event.data : "signature" in event ? "signed" : "text" in event ? event.text : ""))).toEqual([
      "One.", "signed", "opaque", "Two.", "signed",
    ]);
  });

  it("shows the status and Anthropic's message of an HTTP error", async () => {
    const model = await anthropicModel([{ kind: "error", status: 400, type: "invalid_request_error", message: "max_tokens: must be positive" }]);
    const err = (await failure(model.stream(ask()))) as LlmError;
    expect(err.code).toBe("http");
    expect(err.message).toContain("HTTP 400: max_tokens: must be positive");
  });

  it("retries a 529 overload and then succeeds", async () => {
    const model = await anthropicModel([{ kind: "error", status: 529, type: "overloaded_error", message: "Overloaded" }, { text: "fine" }]);
    const out = await collect(model.stream(ask()));
    expect(out.text).toBe("fine");
    expect(anthropic?.requests).toHaveLength(2);
  });

  it("surfaces an error event mid-stream", async () => {
    const model = await anthropicModel([{ text: "partial", errorAfterEvents: 4 }]);
    const err = (await failure(model.stream(ask()))) as LlmError;
    expect(err.code).toBe("bad-response");
    expect(err.message).toContain("Overloaded");
  });

  it("times out when the server sends nothing", async () => {
    const model = await anthropicModel([{ kind: "hang" }], { requestTimeoutMs: 200, retry: { maxRetries: 0 } });
    const err = (await failure(model.stream(ask()))) as LlmError;
    expect(err.code).toBe("timeout");
  });
});

describe("Gemini adapter against a local Gemini API server", () => {
  it("streams thoughts and text apart and yields whole function calls with their signatures", async () => {
    const model = await geminiModel([
      {
        thoughts: "Adding two numbers.",
        text: "Calling add.",
        functionCalls: [{ name: "add", args: { a: 2, b: 3 }, thoughtSignature: "c2lnbmF0dXJl" }, { name: "add", args: { a: 4, b: 4 }, id: "fc-2" }],
        usage: { promptTokenCount: 30, candidatesTokenCount: 10, thoughtsTokenCount: 5 },
      },
    ]);
    const out = await collect(model.stream(ask()));
    expect(out.reasoning).toBe("Adding two numbers.");
    expect(out.text).toBe("Calling add.");
    expect(out.calls.map((c) => [c.name, JSON.parse(c.arguments), c.signature])).toEqual([
      ["add", { a: 2, b: 3 }, "c2lnbmF0dXJl"],
      ["add", { a: 4, b: 4 }, undefined],
    ]);
    expect(out.calls[1]?.id).toBe("fc-2");
    expect(out.events.at(-2)).toEqual({ type: "usage", usage: { inputTokens: 30, outputTokens: 15, totalTokens: 45 } });
    expect(out.finish).toBe("tool-calls");
  });

  it("sends cleaned functionDeclarations, system instruction, functionCall and functionResponse parts", async () => {
    const model = await geminiModel([{ text: "5" }]);
    await collect(model.stream(ask({ toolChoice: { name: "add" }, temperature: 0 })));
    const request = gemini?.requests[0];
    expect(request?.headers["x-goog-api-key"]).toBe("test-key");
    expect(request?.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    const body = request?.body;
    expect(body.systemInstruction.parts[0].text).toBe("Be brief.");
    expect(body.generationConfig.temperature).toBe(0);
    expect(body.tools[0].functionDeclarations[0]).toEqual({
      name: "add",
      description: "Add two numbers",
      parameters: { type: "OBJECT", properties: { a: { type: "NUMBER" }, b: { type: "NUMBER" } }, required: ["a", "b"] },
    });
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["add"] } });
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "What is 2 + 3?" }] },
      { role: "model", parts: [{ text: "Let me add." }, { functionCall: { name: "add", args: { a: 2, b: 3 }, id: "toolu_1" }, thoughtSignature: "sig-1" }] },
      { role: "user", parts: [{ functionResponse: { name: "add", response: { output: "5" }, id: "toolu_1" } }] },
    ]);
  });

  it("converts a tool list once while the same list is offered, and anew for a new list", async () => {
    const model = new GeminiModel({ apiKey: "test-key", model: "gemini-2.5-flash" });
    const tools = [add];
    const first = model.requestConfig(ask({ tools })).tools;
    expect(model.requestConfig(ask({ tools })).tools).toBe(first);
    const other = model.requestConfig(ask({ tools: [add] })).tools;
    expect(other).not.toBe(first);
    expect(other).toEqual(first);
  });

  it("is accepted by a server that refuses schemas outside Gemini's subset, for a nasty schema too", async () => {
    const model = await geminiModel([{ text: "ok" }]);
    const nasty: ToolDefinition = {
      name: "nasty",
      parameters: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        $defs: { Id: { type: ["string", "null"], format: "uuid" } },
        properties: { id: { $ref: "#/$defs/Id" }, kind: { const: 3 }, tags: { type: "array", items: { type: "string" }, uniqueItems: true } },
        additionalProperties: false,
      },
    };
    const out = await collect(model.stream(ask({ tools: [add, nasty, { name: "ping", parameters: {} }] })));
    expect(out.text).toBe("ok");
    expect(gemini?.requests[0]?.body.tools[0].functionDeclarations[2]).toEqual({ name: "ping" });
  });

  it("refuses an image at a URL, naming it, before any request", async () => {
    const model = await geminiModel([{ text: "a" }]);
    const error = await failure(model.stream({ messages: [{ role: "user", content: [{ type: "image-url", url: "https://images.example/cat.png" }] }] }));
    expect(error).toMatchObject({ code: "unsupported-content", message: expect.stringContaining("gemini takes images inline only, not by URL (https://images.example/cat.png)") });
    expect(gemini?.requests).toHaveLength(0);
  });

  it("shows the status and Google's message of an HTTP error, and says API key problems plainly", async () => {
    const model = await geminiModel([{ kind: "error", status: 400, message: "API key not valid. Please pass a valid API key." }]);
    const err = (await failure(model.stream(ask()))) as LlmError;
    expect(err.code).toBe("http");
    expect(err.message).toContain("HTTP 400: API key not valid. Please pass a valid API key.");
  });

  it("retries a 503 and then succeeds", async () => {
    const model = await geminiModel([{ kind: "error", status: 503, message: "The model is overloaded.", statusText: "UNAVAILABLE" }, { text: "back" }]);
    const out = await collect(model.stream(ask()));
    expect(out.text).toBe("back");
  });

  it("says \"no message\" for an error body mid-stream that carries none", async () => {
    // The SDK throws some mid-stream error events as a plain Error carrying the event's JSON;
    // the stream is stubbed so the body can be one without a message.
    const model = new GeminiModel({ baseURL: "http://127.0.0.1:9", apiKey: "test-key", model: "gemini-2.5-flash", retry: { maxRetries: 0 } });
    const client = (model as unknown as { client: { models: { generateContentStream: () => Promise<AsyncGenerator<unknown>> } } }).client;
    client.models.generateContentStream = async () =>
      (async function* () {
        yield { candidates: [{ content: { role: "model", parts: [{ text: "partial" }] }, index: 0 }] };
        throw new Error('exception parsing stream chunk {"error":{"code":500}}');
      })();
    const err = (await failure(model.stream(ask()))) as LlmError;
    expect(err.code).toBe("bad-response");
    expect(err.message).toBe("The model server at http://127.0.0.1:9 reported an error mid-stream: no message");
  });

  it("ends with aborted when the caller aborts mid-stream", async () => {
    const model = await geminiModel([{ text: "a long answer in several pieces", stallAfterChunks: 1 }]);
    const controller = new AbortController();
    const err = await failure(
      (async function* () {
        for await (const e of model.stream(ask({ signal: controller.signal }))) {
          controller.abort();
          yield e;
        }
      })(),
    );
    expect((err as LlmError).code).toBe("aborted");
  });
});

describe("Anthropic and Gemini adapters' requests", () => {
  it("go out through the lean upstream fetch, which asks for no content encoding (the global fetch asks for gzip, and marks its requests sec-fetch-mode)", async () => {
    const claude = await anthropicModel([{ text: "Hi" }]);
    await collect(claude.stream(ask()));
    const flash = await geminiModel([{ text: "Hi" }]);
    await collect(flash.stream(ask()));
    for (const { headers } of [...anthropic!.requests, ...gemini!.requests]) {
      expect(headers["accept-encoding"]).toBeUndefined();
      expect(headers["sec-fetch-mode"]).toBeUndefined();
    }
    expect(anthropic!.requests).toHaveLength(1);
    expect(gemini!.requests).toHaveLength(1);
  });
});

describe("reasoning effort on a provider that takes a thinking budget", () => {
  const claude = (maxTokens?: number) => new AnthropicModel({ apiKey: "test-key", model: "claude-haiku-4-5", ...(maxTokens ? { maxTokens } : {}) });
  const flash = new GeminiModel({ apiKey: "test-key", model: "gemini-2.5-flash" });

  it("turns Anthropic's thinking on with LiteLLM's budgets, below max_tokens, and off for 'none'; the request's own thinking wins", () => {
    expect(claude().requestBody(ask({ reasoningEffort: "low" })).thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
    expect(claude().requestBody(ask({ reasoningEffort: "minimal" })).thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
    expect(claude().requestBody(ask({ reasoningEffort: "xhigh" })).thinking).toEqual({ type: "enabled", budget_tokens: 4096 - 1 });
    expect(claude(16000).requestBody(ask({ reasoningEffort: "high" })).thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
    expect(claude(1000).requestBody(ask({ reasoningEffort: "medium" })).thinking).toEqual({ type: "disabled" });
    expect(claude().requestBody(ask({ reasoningEffort: "none" })).thinking).toEqual({ type: "disabled" });
    expect(claude().requestBody(ask({ reasoningEffort: "high", thinking: { enabled: true, budgetTokens: 2000 } })).thinking).toEqual({ type: "enabled", budget_tokens: 2000 });
    expect(claude().requestBody(ask())).not.toHaveProperty("thinking");
  });

  it("turns Gemini's thinking on with the budgets of Google's OpenAI-compatible endpoint", () => {
    expect(flash.requestConfig(ask({ reasoningEffort: "medium" })).thinkingConfig).toEqual({ includeThoughts: true, thinkingBudget: 8192 });
    expect(flash.requestConfig(ask({ reasoningEffort: "none" })).thinkingConfig).toEqual({ thinkingBudget: 0 });
  });
});
