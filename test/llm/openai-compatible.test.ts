import { afterEach, describe, expect, it } from "vitest";
import { LlmError } from "../../src/llm/errors.js";
import { OpenAICompatibleModel, type OpenAICompatibleOptions } from "../../src/llm/openai-compatible.js";
import type { ChatRequest, ToolDefinition } from "../../src/llm/types.js";
import { startVllmServer, VLLM_NO_TOOLS_MESSAGE, type VllmReply, type VllmServer } from "../support/vllm-server.js";
import { freePort } from "../support/free-port.js";
import { collect, failure } from "./collect.js";

const getDate: ToolDefinition = {
  name: "get-date",
  description: "Get the current date and time with optional formatting",
  parameters: {
    type: "object",
    properties: {
      format: { type: "string", enum: ["iso", "locale", "date-only", "time-only", "timestamp"] },
      timezone: { type: "string" },
    },
    required: [],
  },
};

const ask = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [
    { role: "system", content: "You are a helpful assistant." },
    { role: "user", content: "現在是幾年幾月幾號？" },
  ],
  tools: [getDate],
  ...extra,
});

let server: VllmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function modelFor(replies: VllmReply[], options: Partial<OpenAICompatibleOptions> = {}, toolsEnabled = true) {
  server = await startVllmServer({ replies, toolsEnabled });
  return new OpenAICompatibleModel({ baseURL: server.url, model: "Qwen/Qwen3-8B", provider: "vllm", retry: { baseDelayMs: 1 }, ...options });
}

describe("OpenAI-compatible adapter against the scripted vLLM server", () => {
  it("streams text deltas and finishes with stop and usage", async () => {
    const model = await modelFor([{ text: "Today is 7 January 2026.", usage: { prompt_tokens: 30, completion_tokens: 9 } }]);
    const out = await collect(model.stream(ask({ tools: [] })));
    expect(out.text).toBe("Today is 7 January 2026.");
    expect(out.events.filter((e) => e.type === "text-delta").length).toBeGreaterThan(1);
    expect(out.events.at(-2)).toEqual({ type: "usage", usage: { inputTokens: 30, outputTokens: 9, totalTokens: 39 } });
    expect(out.events.at(-1)).toEqual({ type: "finish", reason: "stop" });
    expect(out.calls).toEqual([]);
  });

  it("sends the key as a bearer token, the configured headers beside it, and a configured Authorization instead of it", async () => {
    const model = await modelFor([{ text: "one" }, { text: "two" }], { apiKey: "sk-local", headers: { "X-Tenant": "blue" } });
    expect((await collect(model.stream(ask({ tools: [] })))).text).toBe("one");
    const replaced = new OpenAICompatibleModel({ baseURL: server?.url as string, model: "Qwen/Qwen3-8B", apiKey: "sk-local", headers: { Authorization: "Token abc" } });
    expect((await collect(replaced.stream(ask({ tools: [] })))).text).toBe("two");
    const [first, second] = server?.chatRequests ?? [];
    expect(first?.headers).toMatchObject({ authorization: "Bearer sk-local", "x-tenant": "blue", "content-type": "application/json" });
    expect(first?.body).toMatchObject({ model: "Qwen/Qwen3-8B", stream: true });
    // One Authorization header, the configured one: not the key's and the configured one joined.
    expect(second?.headers.authorization).toBe("Token abc");
  });

  it("asks for a token count the way it asks for a chat: credentials in the base URL sent as Basic auth, configured headers, a count only from a 2xx", async () => {
    server = await startVllmServer({ replies: [{ text: "hi" }] });
    const url = new URL(server.url);
    url.username = "ana";
    url.password = "p@ss";
    const model = new OpenAICompatibleModel({ baseURL: url.href, model: "Qwen/Qwen3-8B", provider: "vllm", headers: { "X-Tenant": "blue" } });
    const count = await model.countTokens(ask({ tools: [] }));
    expect((await collect(model.stream(ask({ tools: [] })))).text).toBe("hi");
    const asked = server.requests.find((request) => request.path === "/tokenize");
    const chat = server.chatRequests[0];
    const basic = `Basic ${Buffer.from("ana:p@ss").toString("base64")}`;
    expect(count).toBeGreaterThan(0);
    expect(asked?.headers).toMatchObject({ authorization: basic, "x-tenant": "blue", "content-type": "application/json" });
    expect(chat?.headers).toMatchObject({ authorization: basic, "x-tenant": "blue", "content-type": "application/json" });
    expect(asked?.body).toMatchObject({ model: "Qwen/Qwen3-8B", add_generation_prompt: true });
    // A server without /tokenize answers 404: no count, and no error.
    await server.close();
    server = await startVllmServer({ replies: [], tokenize: false });
    expect(await new OpenAICompatibleModel({ baseURL: server.url, model: "Qwen/Qwen3-8B" }).countTokens(ask())).toBeUndefined();
  });

  it("keeps reasoning_content apart from the answer", async () => {
    const model = await modelFor([{ reasoning: "The user wants the date.", text: "Let me check." }]);
    const out = await collect(model.stream(ask()));
    expect(out.reasoning).toBe("The user wants the date.");
    expect(out.text).toBe("Let me check.");
  });

  it("reads the newer `reasoning` field as reasoning too", async () => {
    const model = await modelFor([{ reasoning: "Thinking in the new field.", reasoningField: "reasoning", text: "Done." }]);
    const out = await collect(model.stream(ask()));
    expect(out.reasoning).toBe("Thinking in the new field.");
    expect(out.text).toBe("Done.");
  });

  it("assembles one tool call from fragments, the last one inside the finish chunk", async () => {
    const model = await modelFor([{ toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }] }]);
    const out = await collect(model.stream(ask()));
    expect(out.calls).toHaveLength(1);
    expect(out.calls[0]?.name).toBe("get-date");
    expect(out.calls[0]?.id).toMatch(/^chatcmpl-tool-[0-9a-f]{32}$/);
    expect(JSON.parse(out.calls[0]?.arguments ?? "")).toEqual({ format: "date-only" });
    expect(out.finish).toBe("tool-calls");
  });

  it("assembles two parallel calls whatever the fragment size, non-ASCII and escapes included", async () => {
    const args1 = { timezone: "America/New_York", format: "time-only", note: 'say "hi"\n' };
    const args2 = { timezone: "Asia/Taipei", city: "臺北 🌏", n: -12.5e3 };
    for (const size of [1, 2, 3, 5, 8, 13, 1000]) {
      await server?.close();
      const model = await modelFor([
        {
          toolCalls: [
            { name: "get-date", arguments: args1 },
            { name: "get-date", arguments: args2, id: "functions.get-date:1" },
          ],
          fragmentSizes: [size],
          firstFragmentWithName: size % 2 === 1,
        },
      ]);
      const out = await collect(model.stream(ask()));
      expect(out.calls.map((c) => JSON.parse(c.arguments))).toEqual([args1, args2]);
      expect(out.calls[1]?.id).toBe("functions.get-date:1");
      expect(out.finish).toBe("tool-calls");
    }
  });

  it("reads events that arrive cut in two across network writes", async () => {
    const model = await modelFor([{ reasoning: "hmm", text: "ééééééééé ü 臺北臺北臺北", toolCalls: [{ name: "get-date", arguments: { timezone: "Europe/Paris" } }], splitEvents: true }]);
    const out = await collect(model.stream(ask()));
    expect(out.reasoning).toBe("hmm");
    expect(out.text).toBe("ééééééééé ü 臺北臺北臺北");
    expect(JSON.parse(out.calls[0]?.arguments ?? "")).toEqual({ timezone: "Europe/Paris" });
  });

  it("hands on arguments that are not valid JSON untouched", async () => {
    const model = await modelFor([{ toolCalls: [{ name: "get-date", arguments: '{"format": "iso", ' }] }]);
    const out = await collect(model.stream(ask()));
    expect(out.calls[0]?.arguments).toBe('{"format": "iso", ');
  });

  it("gives a call that streamed no argument text the empty object", async () => {
    const model = await modelFor([{ toolCalls: [{ name: "get-date", arguments: "" }] }]);
    const out = await collect(model.stream(ask()));
    expect(out.calls[0]?.arguments).toBe("{}");
  });

  it("sends tool_choice required and reads fragments carrying name: null", async () => {
    const model = await modelFor([{ toolCalls: [{ name: "get-date", arguments: { timezone: "Asia/Taipei" } }] }]);
    const out = await collect(model.stream(ask({ toolChoice: "required" })));
    expect(server?.chatRequests[0]?.body.tool_choice).toBe("required");
    expect(out.calls[0]?.name).toBe("get-date");
    expect(JSON.parse(out.calls[0]?.arguments ?? "")).toEqual({ timezone: "Asia/Taipei" });
  });

  it("sends a named tool_choice and runs the call although vLLM finishes with stop", async () => {
    const model = await modelFor([{ toolCalls: [{ name: "get-date", arguments: {} }] }]);
    const out = await collect(model.stream(ask({ toolChoice: { name: "get-date" } })));
    expect(server?.chatRequests[0]?.body.tool_choice).toEqual({ type: "function", function: { name: "get-date" } });
    expect(out.calls).toHaveLength(1);
    expect(out.finish).toBe("tool-calls");
  });

  it("sends tools in OpenAI form, an empty object schema for a tool without parameters, and usage requested", async () => {
    const model = await modelFor([{ text: "ok" }]);
    await collect(model.stream(ask({ tools: [getDate, { name: "ping", parameters: {} }], temperature: 0.2, maxTokens: 100 })));
    const body = server?.chatRequests[0]?.body;
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.tool_choice).toBe("auto");
    expect(body.temperature).toBe(0.2);
    expect(body.max_tokens).toBe(100);
    const { required: _emptyRequired, ...withoutEmptyRequired } = getDate.parameters;
    expect(body.tools[0]).toEqual({ type: "function", function: { name: "get-date", description: getDate.description, parameters: withoutEmptyRequired } });
    expect(body.tools[1]).toEqual({ type: "function", function: { name: "ping", parameters: { type: "object", properties: {} } } });
  });

  it("converts a tool list once while the same list is offered, and anew for a new list", () => {
    const model = new OpenAICompatibleModel({ baseURL: "http://127.0.0.1:9/v1", model: "Qwen/Qwen3-8B" });
    const tools = [getDate];
    const first = model.requestBody(ask({ tools })).tools;
    expect(model.requestBody(ask({ tools })).tools).toBe(first);
    const other = model.requestBody(ask({ tools: [getDate] })).tools;
    expect(other).not.toBe(first);
    expect(other).toEqual(first);
  });

  it("passes extra body fields through to the server", async () => {
    const model = await modelFor([{ text: "ok" }], { extraBody: { chat_template_kwargs: { enable_thinking: false }, top_k: 20 } });
    await collect(model.stream(ask()));
    expect(server?.chatRequests[0]?.body.chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(server?.chatRequests[0]?.body.top_k).toBe(20);
  });

  it("sends thinking as vLLM's template switches, keeping the configured template arguments; never to OpenAI", () => {
    const options = { baseURL: "http://127.0.0.1:9/v1", model: "Qwen/Qwen3-8B", extraBody: { chat_template_kwargs: { custom: 1, enable_thinking: false } } };
    const vllm = new OpenAICompatibleModel({ ...options, provider: "vllm" });
    const body = vllm.requestBody(ask({ thinking: { enabled: true, budgetTokens: 512 } })) as unknown as Record<string, unknown>;
    expect(body.chat_template_kwargs).toEqual({ custom: 1, enable_thinking: true, thinking: true });
    expect(body.thinking_token_budget).toBe(512);
    expect((vllm.requestBody(ask()) as unknown as Record<string, unknown>).chat_template_kwargs).toEqual({ custom: 1, enable_thinking: false });
    const openai = new OpenAICompatibleModel({ ...options, extraBody: {}, provider: "openai" });
    const sent = openai.requestBody(ask({ thinking: { enabled: false } })) as unknown as Record<string, unknown>;
    expect(sent.chat_template_kwargs).toBeUndefined();
  });

  it("maps a conversation with tool calls, tool results and an image to the wire", async () => {
    const model = await modelFor([{ text: "ok" }]);
    await collect(
      model.stream({
        messages: [
          { role: "user", content: [{ type: "text", text: "what is this?" }, { type: "image", data: "AAAA", mimeType: "image/png" }] },
          { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "get-date", arguments: '{"format":"iso"}' }, { id: "call_2", name: "get-date", arguments: "{broken" }] },
          { role: "tool", toolCallId: "call_1", name: "get-date", content: "2026-01-07T00:00:00Z" },
          { role: "tool", toolCallId: "call_2", name: "get-date", content: [{ type: "text", text: "an image" }, { type: "image", data: "BBBB", mimeType: "image/jpeg" }], isError: true },
        ],
      }),
    );
    const messages = server?.chatRequests[0]?.body.messages;
    expect(messages[0].content[1]).toEqual({ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } });
    expect(messages[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "get-date", arguments: '{"format":"iso"}' } },
        { id: "call_2", type: "function", function: { name: "get-date", arguments: "{}" } },
      ],
    });
    expect(messages[2]).toEqual({ role: "tool", tool_call_id: "call_1", content: "2026-01-07T00:00:00Z" });
    expect(messages[3]).toEqual({ role: "tool", tool_call_id: "call_2", content: "an image" });
    expect(messages[4].role).toBe("user");
    expect(messages[4].content[1]).toEqual({ type: "image_url", image_url: { url: "data:image/jpeg;base64,BBBB" } });
  });
});

describe("OpenAI-compatible adapter errors", () => {
  it("reports vLLM's refusal of tools as tools-unsupported, in both error body formats", async () => {
    for (const errorFormat of ["legacy", "wrapped"] as const) {
      server = await startVllmServer({ toolsEnabled: false, errorFormat });
      const model = new OpenAICompatibleModel({ baseURL: server.url, model: "m" });
      const err = await failure(model.stream(ask()));
      expect(err).toBeInstanceOf(LlmError);
      expect((err as LlmError).code).toBe("tools-unsupported");
      expect((err as LlmError).details.status).toBe(400);
      expect((err as LlmError).message).toContain(VLLM_NO_TOOLS_MESSAGE);
      expect((err as LlmError).message).not.toContain("\n");
      await server.close();
    }
    server = undefined;
  });

  it("still gets named tool choice from a vLLM without a tool parser", async () => {
    const model = await modelFor([{ toolCalls: [{ name: "get-date", arguments: {} }] }], {}, false);
    const out = await collect(model.stream(ask({ toolChoice: { name: "get-date" } })));
    expect(out.calls).toHaveLength(1);
  });

  it("recognises llama.cpp's and Ollama's refusals of tools", async () => {
    for (const message of ["tools param requires --jinja flag", "registry.ollama.ai/library/gemma:2b does not support tools"]) {
      const model = await modelFor([{ kind: "error", status: 400, message, format: "wrapped" }]);
      const err = (await failure(model.stream(ask()))) as LlmError;
      expect(err.code).toBe("tools-unsupported");
      await server?.close();
    }
    server = undefined;
  });

  it("reports vLLM's refusal of a request longer than the context as context-length, with its numbers, and does not retry it", async () => {
    const message =
      "This model's maximum context length is 32768 tokens. However, you requested 33800 tokens (31800 in the messages, 2000 in the completion). Please reduce the length of the messages or completion.";
    const model = await modelFor([{ kind: "error", status: 400, message }]);
    const err = (await failure(model.stream(ask()))) as LlmError;
    expect(err.code).toBe("context-length");
    expect(err.details.overflow).toEqual({ limit: 32768, requested: 33800 });
    expect(err.message).toContain("longer than the model's context of 32768 tokens (33800 requested)");
    expect(server?.chatRequests).toHaveLength(1);
  });

  it("shows the status and the server's message of an HTTP error, and does not retry a 404", async () => {
    const model = await modelFor([{ kind: "error", status: 404, message: "The model `nope` does not exist." }]);
    const err = (await failure(model.stream(ask()))) as LlmError;
    expect(err.code).toBe("http");
    expect(err.message).toContain("HTTP 404");
    expect(err.message).toContain("The model `nope` does not exist.");
    expect(server?.chatRequests).toHaveLength(1);
  });

  it("shows a plain-text error body", async () => {
    const model = await modelFor([{ kind: "error", status: 502, message: "", format: { raw: "Bad Gateway from the proxy" } }], { retry: { maxRetries: 0 } });
    const err = (await failure(model.stream(ask()))) as LlmError;
    expect(err.message).toContain("HTTP 502: Bad Gateway from the proxy");
  });

  it("retries a 500 and then succeeds", async () => {
    const model = await modelFor([{ kind: "error", status: 500, message: "CUDA out of memory" }, { text: "recovered" }]);
    const out = await collect(model.stream(ask()));
    expect(out.text).toBe("recovered");
    expect(server?.chatRequests).toHaveLength(2);
  });

  it("retries a 429 honouring Retry-After, within the bound", async () => {
    const model = await modelFor([
      { kind: "error", status: 429, message: "slow down", format: "wrapped", headers: { "retry-after": "0" } },
      { kind: "error", status: 429, message: "slow down", format: "wrapped", headers: { "retry-after": "0" } },
      { kind: "error", status: 429, message: "still busy", format: "wrapped", headers: { "retry-after": "0" } },
    ]);
    const err = (await failure(model.stream(ask()))) as LlmError;
    expect(err.details.status).toBe(429);
    expect(err.message).toContain("still busy");
    expect(server?.chatRequests).toHaveLength(3); // first attempt + 2 retries (the default bound)
  });

  it("does not retry once output has been streamed", async () => {
    const model = await modelFor([{ text: "partial answer here", errorAfterChunks: { chunks: 3, message: "engine died", code: 500 } }, { text: "never" }]);
    const seen: string[] = [];
    const err = await failure(
      (async function* () {
        for await (const e of model.stream(ask())) {
          if (e.type === "text-delta") seen.push(e.text);
          yield e;
        }
      })(),
    );
    expect(seen.length).toBeGreaterThan(0);
    expect((err as LlmError).message).toContain("engine died");
    expect(server?.chatRequests).toHaveLength(1);
  });

  it("says in words that the server closed the connection mid-answer, not that it sent something unreadable", async () => {
    const model = await modelFor([{ text: "the start of an answer", dropAfterChunks: 3 }]);
    const err = (await failure(model.stream(ask()))) as LlmError;
    expect(err.message).toMatch(/^The model server at http:\/\/127\.0\.0\.1:\d+\/v1 closed the connection mid-answer \(.+\)\.$/);
    expect(err.message).not.toMatch(/unreadable|terminated/);
  });

  it("surfaces an error sent mid-stream as data: {error}", async () => {
    const model = await modelFor([{ text: "abc", errorAfterChunks: { chunks: 1, message: "Expecting value: line 1 column 1", code: 400 } }]);
    const err = (await failure(model.stream(ask()))) as LlmError;
    expect(err.code).toBe("bad-response");
    expect(err.message).toContain("Expecting value: line 1 column 1");
  });

  it("says in one line that nothing listens, naming the URL and how to start vLLM or Ollama", async () => {
    const port = await freePort();
    const model = new OpenAICompatibleModel({ baseURL: `http://127.0.0.1:${port}/v1`, model: "m", retry: { maxRetries: 0 } });
    const err = (await failure(model.stream(ask()))) as LlmError;
    expect(err.code).toBe("connection");
    expect(err.message).toContain(`http://127.0.0.1:${port}/v1`);
    expect(err.message).toContain("connection refused");
    expect(err.message).toContain("vllm serve MODEL --enable-auto-tool-choice --tool-call-parser hermes");
    expect(err.message).toContain("ollama serve");
    expect(err.message).not.toContain("\n");
  });

  it("times out when the server sends nothing", async () => {
    const model = await modelFor([{ kind: "hang" }], { requestTimeoutMs: 200, retry: { maxRetries: 0 } });
    const err = (await failure(model.stream(ask()))) as LlmError;
    expect(err.code).toBe("timeout");
    expect(err.message).toContain("200 ms");
  });

  it("times out when the stream stalls half-way", async () => {
    const model = await modelFor([{ text: "a long answer that stalls", stallAfterChunks: 3 }], { requestTimeoutMs: 200 });
    const err = (await failure(model.stream(ask()))) as LlmError;
    expect(err.code).toBe("timeout");
  });

  it("ends with aborted when the caller aborts mid-stream", async () => {
    const model = await modelFor([{ text: "one two three four five six seven", stallAfterChunks: 3 }]);
    const controller = new AbortController();
    const texts: string[] = [];
    const err = await failure(
      (async function* () {
        for await (const e of model.stream(ask({ signal: controller.signal }))) {
          if (e.type === "text-delta") {
            texts.push(e.text);
            controller.abort();
          }
          yield e;
        }
      })(),
    );
    expect(texts).toHaveLength(1);
    expect((err as LlmError).code).toBe("aborted");
  });

  it("ends with aborted without a request when the signal is already aborted", async () => {
    const model = await modelFor([{ text: "never" }]);
    const err = (await failure(model.stream(ask({ signal: AbortSignal.abort() })))) as LlmError;
    expect(err.code).toBe("aborted");
    expect(server?.chatRequests).toHaveLength(0);
  });

  it("says so when the stream ends without a finish", async () => {
    const model = await modelFor([{ text: "cut", finishReason: "" }]);
    const err = (await failure(model.stream(ask()))) as LlmError;
    expect(err.code).toBe("bad-response");
  });
});
