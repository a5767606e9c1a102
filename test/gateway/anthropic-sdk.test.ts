import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { INTERLEAVED_WEATHER_CALLS, REDACTED_THINKING, signatureOf, startAnthropicServer } from "../support/anthropic-server.js";
import { startGeminiServer } from "../support/gemini-server.js";
import type { ScriptedServer } from "../support/scripted-server.js";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";
import { startHarness, type Harness } from "./harness.js";

/** The Anthropic SDK against the gateway's Messages API; the gateway in front of the scripted vLLM server, the bundled time server behind it. */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function client(h: Harness, apiKey = "none"): Anthropic {
  return new Anthropic({ baseURL: h.gateway.url, apiKey, maxRetries: 0 });
}

const DATE_CALL = { toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }], usage: { prompt_tokens: 100, completion_tokens: 10 } };
const ANSWER = { text: "Today is **7 January 2026**.", usage: { prompt_tokens: 150, completion_tokens: 8 } };
const WEATHER: Anthropic.Tool = { name: "get_weather", description: "Weather in a city", input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };
const WEATHER_CALL = { toolCalls: [{ name: "get_weather", arguments: { city: "Taipei" } }] };

describe("Anthropic Messages API", () => {
  it("runs the MCP tool inside and answers once, passing system and the sampling settings", async () => {
    harness = await startHarness({ replies: [DATE_CALL, ANSWER] });
    const message = await client(harness).messages.create({
      model: DEFAULT_VLLM_MODEL,
      max_tokens: 512,
      system: "Answer briefly.",
      stop_sequences: ["END"],
      messages: [{ role: "user", content: "What is the date today?" }],
      // Sampling settings this SDK's types leave out (newer Claude models refuse them); the API takes them.
      ...{ temperature: 0.2, top_p: 0.9, top_k: 20 },
    });
    expect(message).toMatchObject({ type: "message", role: "assistant", model: DEFAULT_VLLM_MODEL, stop_reason: "end_turn", usage: { input_tokens: 250, output_tokens: 18 } });
    expect(message.id).toMatch(/^msg_/);
    expect(message.content).toEqual([{ type: "text", text: "Today is **7 January 2026**." }]);
    const [first, second] = harness.upstream.chatRequests.map((request) => request.body);
    expect(first).toMatchObject({ max_tokens: 512, temperature: 0.2, top_p: 0.9, top_k: 20, stop: ["END"] });
    expect(first.messages[0]).toEqual({ role: "system", content: "Answer briefly." });
    expect(JSON.stringify(first.tools)).toContain("get-date");
    // The tool's result went back to the model.
    expect(JSON.stringify(second.messages)).toContain(String(new Date().getFullYear()));
  });

  it("streams Anthropic's events: thinking and text blocks, message_delta with the stop reason and usage", async () => {
    harness = await startHarness({ replies: [{ ...DATE_CALL, reasoning: "I need the date." }, { ...ANSWER, reasoning: "Now answer." }] });
    const stream = client(harness).messages.stream({
      model: DEFAULT_VLLM_MODEL,
      max_tokens: 512,
      system: [{ type: "text", text: "Answer briefly." }],
      messages: [{ role: "user", content: "What is the date today?" }],
    });
    const events: string[] = [];
    let text = "";
    stream.on("streamEvent", (event) => events.push(event.type));
    stream.on("text", (delta) => (text += delta));
    const message = await stream.finalMessage();
    expect(text).toBe("Today is **7 January 2026**.");
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "thinking", "text"]);
    expect(message.content[0]).toMatchObject({ type: "thinking", thinking: "I need the date." });
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage.output_tokens).toBe(18);
    expect(events[0]).toBe("message_start");
    expect(events.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(events.filter((type) => type === "content_block_start")).toHaveLength(3);
    expect(events.filter((type) => type === "content_block_stop")).toHaveLength(3);
    expect(harness.upstream.chatRequests[0]?.body.messages[0]).toEqual({ role: "system", content: "Answer briefly." });
  });

  it("sends the raw event stream Anthropic sends: named events, a ping after message_start", async () => {
    harness = await startHarness({ replies: [{ text: "Hello." }], servers: {} });
    const response = await fetch(`${harness.gateway.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": "none" },
      body: JSON.stringify({ model: DEFAULT_VLLM_MODEL, max_tokens: 64, stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const names = [...(await response.text()).matchAll(/^event: (\w+)\ndata: (.*)$/gm)].map((match) => {
      expect(JSON.parse(match[2] as string).type).toBe(match[1]);
      return match[1];
    });
    // Deltas come as the upstream's chunks do, one or more.
    expect(names.filter((name, i) => name !== names[i - 1])).toEqual(["message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]);
  });

  it.each([false, true])("hands a client tool back as tool_use and goes on from its tool_result (streamed: %s)", async (streamed) => {
    harness = await startHarness({ replies: [WEATHER_CALL, { text: "It is 25°C in Taipei." }] });
    const sdk = client(harness);
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "Weather in Taipei?" }];
    const params = { model: DEFAULT_VLLM_MODEL, max_tokens: 256, tools: [WEATHER], messages };
    const first = streamed ? await sdk.messages.stream(params).finalMessage() : await sdk.messages.create(params);
    expect(first.stop_reason).toBe("tool_use");
    const use = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === "tool_use");
    expect(use).toMatchObject({ name: "get_weather", input: { city: "Taipei" } });
    messages.push({ role: "assistant", content: first.content });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: use?.id ?? "", content: "25°C, sunny" }] });
    const second = await sdk.messages.create({ ...params, messages });
    expect(second.content).toEqual([{ type: "text", text: "It is 25°C in Taipei." }]);
    const sent = harness.upstream.chatRequests[1]?.body.messages;
    expect(sent.at(-2)).toMatchObject({ role: "assistant", tool_calls: [{ id: use?.id, function: { name: "get_weather" } }] });
    expect(sent.at(-1)).toEqual({ role: "tool", tool_call_id: use?.id, content: "25°C, sunny" });
  });

  it("joins system messages sent inside the conversation (as Claude Code does) to the system prompt", async () => {
    harness = await startHarness({ replies: [{ text: "ok" }], servers: {} });
    await client(harness).messages.create({
      model: DEFAULT_VLLM_MODEL,
      max_tokens: 16,
      system: "First.",
      messages: [{ role: "user", content: "hi" }, { role: "system", content: "Second." } as unknown as Anthropic.MessageParam, { role: "user", content: "again" }],
    });
    const sent = harness.upstream.chatRequests[0]?.body.messages;
    expect(sent[0]).toEqual({ role: "system", content: "First.\n\nSecond." });
    expect(sent.slice(1).map((m: { role: string }) => m.role)).toEqual(["user", "user"]);
  });

  it("says stop_reason max_tokens when the answer was cut, whole and streamed", async () => {
    harness = await startHarness({ replies: [{ text: "Today is", finishReason: "length" }, { text: "Today is", finishReason: "length" }], servers: {} });
    const params = { model: DEFAULT_VLLM_MODEL, max_tokens: 3, messages: [{ role: "user" as const, content: "Date?" }] };
    expect((await client(harness).messages.create(params)).stop_reason).toBe("max_tokens");
    expect((await client(harness).messages.stream(params).finalMessage()).stop_reason).toBe("max_tokens");
  });

  it("says stop_reason stop_sequence, naming the sequence, when one of the request's stop sequences ended the answer, whole and streamed", async () => {
    const stopped = { text: "Today is 7 January", stopReason: "\n\nHuman:" };
    harness = await startHarness({ replies: [stopped, stopped, { text: "Today." }], servers: {} });
    const params = { model: DEFAULT_VLLM_MODEL, max_tokens: 64, stop_sequences: ["\n\nHuman:"], messages: [{ role: "user" as const, content: "Date?" }] };
    const whole = await client(harness).messages.create(params);
    expect([whole.stop_reason, whole.stop_sequence]).toEqual(["stop_sequence", "\n\nHuman:"]);
    expect(harness.upstream.chatRequests[0]?.body.stop).toEqual(["\n\nHuman:"]);
    const streamed = await client(harness).messages.stream(params).finalMessage();
    expect([streamed.stop_reason, streamed.stop_sequence]).toEqual(["stop_sequence", "\n\nHuman:"]);
    // An answer that ended by itself is end_turn with no sequence.
    const ended = await client(harness).messages.create(params);
    expect([ended.stop_reason, ended.stop_sequence]).toEqual(["end_turn", null]);
  });

  it("maps thinking to vLLM's switches in every round (enable_thinking/thinking, thinking_token_budget) and returns the reasoning as thinking blocks", async () => {
    harness = await startHarness({ replies: [DATE_CALL, { ...ANSWER, reasoning: "The tool said the date." }, { text: "7 January." }, { text: "Hi." }] });
    const sdk = client(harness);
    const ask = { model: DEFAULT_VLLM_MODEL, max_tokens: 4096, messages: [{ role: "user" as const, content: "What is the date today?" }] };
    const thought = await sdk.messages.create({ ...ask, thinking: { type: "enabled", budget_tokens: 2048 } });
    expect(thought.content).toEqual([
      { type: "thinking", thinking: "The tool said the date.", signature: "" },
      { type: "text", text: "Today is **7 January 2026**." },
    ]);
    const [first, second] = harness.upstream.chatRequests.map((request) => request.body);
    for (const body of [first, second]) {
      expect(body.chat_template_kwargs).toEqual({ enable_thinking: true, thinking: true });
      expect(body.thinking_token_budget).toBe(2048);
      expect(body.thinking).toBeUndefined();
    }
    await sdk.messages.create({ ...ask, thinking: { type: "disabled" } });
    const disabled = harness.upstream.chatRequests[2]?.body;
    expect(disabled.chat_template_kwargs).toEqual({ enable_thinking: false, thinking: false });
    expect(disabled.thinking_token_budget).toBeUndefined();
    await sdk.messages.create(ask);
    expect(harness.upstream.chatRequests[3]?.body.chat_template_kwargs).toBeUndefined();
  });

  it("refuses a thinking setting it cannot read with 400 naming the field", async () => {
    harness = await startHarness({ replies: [] });
    const bad = client(harness).messages.create({ model: DEFAULT_VLLM_MODEL, max_tokens: 64, messages: [{ role: "user", content: "Hi" }], thinking: { type: "enabled" } as unknown as Anthropic.ThinkingConfigParam });
    await expect(bad).rejects.toMatchObject({ status: 400, message: expect.stringContaining("thinking.budget_tokens") });
    expect(harness.upstream.chatRequests).toHaveLength(0);
  });

  it("passes an image url source to the model as an image URL (the upstream fetches it), and refuses one that is not http(s)", async () => {
    harness = await startHarness({ replies: [{ text: "A cat." }], servers: {} });
    const sdk = client(harness);
    const image = (url: string): Anthropic.ImageBlockParam => ({ type: "image", source: { type: "url", url } });
    await sdk.messages.create({ model: DEFAULT_VLLM_MODEL, max_tokens: 64, messages: [{ role: "user", content: [image("https://images.example/cat.png"), { type: "text", text: "What is this?" }] }] });
    expect(harness.upstream.chatRequests[0]?.body.messages[0].content).toEqual([
      { type: "image_url", image_url: { url: "https://images.example/cat.png" } },
      { type: "text", text: "What is this?" },
    ]);
    const refused = sdk.messages.create({ model: DEFAULT_VLLM_MODEL, max_tokens: 64, messages: [{ role: "user", content: [image("ftp://images.example/cat.png")] }] });
    await expect(refused).rejects.toMatchObject({ status: 400, message: expect.stringContaining("messages[0].content[0]: images are accepted as base64 sources or http(s) url sources") });
    expect(harness.upstream.chatRequests).toHaveLength(1);
  });

  it("maps tool_choice any to required and disable_parallel_tool_use to parallel_tool_calls", async () => {
    harness = await startHarness({ replies: [WEATHER_CALL] });
    await client(harness).messages.create({
      model: DEFAULT_VLLM_MODEL,
      max_tokens: 64,
      tools: [WEATHER],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
      messages: [{ role: "user", content: "Weather?" }],
    });
    expect(harness.upstream.chatRequests[0]?.body).toMatchObject({ tool_choice: "required", parallel_tool_calls: false });
  });

  it("answers errors in Anthropic's shape", async () => {
    harness = await startHarness();
    const sdk = client(harness);
    const missing = await sdk.messages.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "hi" }] } as unknown as Anthropic.MessageCreateParamsNonStreaming).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(Anthropic.BadRequestError);
    expect((missing as InstanceType<typeof Anthropic.BadRequestError>).error).toEqual({ type: "error", error: { type: "invalid_request_error", message: expect.stringMatching(/^max_tokens: /) } });
    const unknown = await sdk.messages.create({ model: "nope", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    expect((unknown as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({ type: "error", error: { type: "not_found_error" } });
    const orphan = await sdk.messages
      .create({ model: DEFAULT_VLLM_MODEL, max_tokens: 10, messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "?" }] }] })
      .catch((e: unknown) => e);
    expect((orphan as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ error: { message: expect.stringContaining('tool_use_id "toolu_x" answers no tool_use') } });
    expect(harness.upstream.chatRequests).toHaveLength(0);
  });

  it("checks x-api-key like a Bearer key, and accepts anthropic-version", async () => {
    harness = await startHarness({ replies: [{ text: "hi" }], apiKeys: ["sekret"] });
    const refused = await client(harness, "wrong").messages.create({ model: DEFAULT_VLLM_MODEL, max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((refused as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({ error: { type: "authentication_error" } });
    const message = await client(harness, "sekret").messages.create({ model: DEFAULT_VLLM_MODEL, max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    expect(message.content).toEqual([{ type: "text", text: "hi" }]);
  });

  it("counts tokens with the upstream's tokenizer (vLLM's /tokenize): the system, the conversation, the hub's tools and the client's", async () => {
    harness = await startHarness();
    const ask = { model: DEFAULT_VLLM_MODEL, system: "Be brief.", tools: [WEATHER], messages: [{ role: "user" as const, content: "What is the date today?" }] };
    const raw = await client(harness).messages.countTokens(ask).withResponse();
    const asked = harness.upstream.requests.find((request) => request.path === "/tokenize");
    const sent = asked?.body as { model: string; messages: unknown[]; tools: { function: { name: string } }[]; add_generation_prompt: boolean };
    expect(sent.model).toBe(DEFAULT_VLLM_MODEL);
    expect(sent.add_generation_prompt).toBe(true);
    expect(sent.messages).toEqual([{ role: "system", content: "Be brief." }, { role: "user", content: "What is the date today?" }]);
    expect(sent.tools.map((tool) => tool.function.name).sort()).toEqual(["get-date", "get_weather"]);
    // The scripted server's count is one per character of what it was given: the gateway answers with exactly that.
    expect(raw.data.input_tokens).toBe(JSON.stringify({ messages: sent.messages, tools: sent.tools }).length);
    expect(raw.response.headers.get("x-toolbridge-token-count")).toBe("exact");
    expect(harness.upstream.chatRequests).toHaveLength(0);
  });

  it("estimates tokens where the upstream cannot count, the hub's tools included", async () => {
    harness = await startHarness({ tokenize: false });
    const sdk = client(harness);
    const ask = { model: DEFAULT_VLLM_MODEL, messages: [{ role: "user" as const, content: "What is the date today?" }] };
    const bare = await sdk.messages.countTokens(ask).withResponse().then(({ data, response }) => {
      expect(response.headers.get("x-toolbridge-token-count")).toBe("estimate");
      return data;
    });
    const withTool = await sdk.messages.countTokens({ ...ask, tools: [WEATHER] });
    expect(bare.input_tokens).toBeGreaterThan(50); // the hub's tools are in it
    expect(withTool.input_tokens).toBeGreaterThan(bare.input_tokens);
    expect(harness.upstream.chatRequests).toHaveLength(0);
  });
});

describe("thinking through the gateway to an Anthropic or Gemini model", () => {
  // The scripted model servers of a test, closed after it.
  const upstreams: ScriptedServer[] = [];
  afterEach(async () => {
    await Promise.all(upstreams.splice(0).map((server) => server.close()));
  });
  const upstream = <T extends ScriptedServer>(server: T): T => {
    upstreams.push(server);
    return server;
  };
  const ASK: Anthropic.MessageParam[] = [{ role: "user", content: "What is the date today?" }];

  it("sends thinking to Anthropic with its budget, gives the signed thinking back in the tool loop, and answers with thinking blocks", async () => {
    const anthropic = upstream(await startAnthropicServer({
      replies: [{ thinking: "I need the date.", toolUses: [{ name: "get-date", input: { format: "date-only" } }] }, { thinking: "The tool said it.", text: "Today." }],
    }));
    harness = await startHarness({ llm: { provider: "anthropic", baseURL: anthropic.url, model: "claude-haiku-4-5", apiKey: "test-key" } });
    const message = await client(harness).messages.create({ model: "claude-haiku-4-5", max_tokens: 4096, messages: ASK, thinking: { type: "enabled", budget_tokens: 2048 } });
    const [first, second] = anthropic.requests.map((request) => request.body);
    expect(first.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(second.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    // The real API refuses a tool-using turn without its signed thinking first; the scripted server does too.
    expect(second.messages[1].content[0]).toEqual({ type: "thinking", thinking: "I need the date.", signature: signatureOf("I need the date.") });
    expect(second.messages[1].content[1]).toMatchObject({ type: "tool_use", name: "get-date" });
    expect(message.content.filter((block) => block.type === "thinking").map((block) => block.thinking)).toEqual(["I need the date.", "The tool said it."]);
    expect(message.content.at(-1)).toMatchObject({ type: "text", text: "Today." });
  });

  it("hands Anthropic's signature to the client with the thinking, and sends the client's signed thinking back before its tool call", async () => {
    const anthropic = upstream(await startAnthropicServer({ replies: [{ thinking: "The weather needs a tool.", toolUses: [{ name: "get_weather", input: { city: "Taipei" } }] }, { text: "25°C in Taipei." }] }));
    harness = await startHarness({ llm: { provider: "anthropic", baseURL: anthropic.url, model: "claude-haiku-4-5", apiKey: "test-key" } });
    const sdk = client(harness);
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "Weather in Taipei?" }];
    const ask = { model: "claude-haiku-4-5", max_tokens: 4096, tools: [WEATHER], thinking: { type: "enabled" as const, budget_tokens: 2048 } };
    // Streamed: the SDK builds the block's signature from the signature_delta.
    const first = await sdk.messages.stream({ ...ask, messages }).finalMessage();
    expect(first.stop_reason).toBe("tool_use");
    expect(first.content[0]).toEqual({ type: "thinking", thinking: "The weather needs a tool.", signature: signatureOf("The weather needs a tool.") });
    const call = first.content.find((block) => block.type === "tool_use") as Anthropic.ToolUseBlock;
    messages.push({ role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "25°C, sunny" }] });
    const second = await sdk.messages.create({ ...ask, messages });
    expect(second.content.at(-1)).toMatchObject({ type: "text", text: "25°C in Taipei." });
    expect(anthropic.requests[1]?.body.messages[1].content[0]).toEqual({ type: "thinking", thinking: "The weather needs a tool.", signature: signatureOf("The weather needs a tool.") });
  });

  it.each([true, false])("hands redacted and interleaved thinking to the client in place, and sends its blocks back unchanged (streamed: %s)", async (streamed) => {
    const REDACTED = REDACTED_THINKING;
    const anthropic = upstream(await startAnthropicServer({ replies: [INTERLEAVED_WEATHER_CALLS, { text: "25°C and 28°C." }] }));
    harness = await startHarness({ llm: { provider: "anthropic", baseURL: anthropic.url, model: "claude-haiku-4-5", apiKey: "test-key" } });
    const sdk = client(harness);
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "Weather in Taipei and Tainan?" }];
    // Adaptive thinking gets the beta only because the client asks for it.
    const ask = { model: "claude-haiku-4-5", max_tokens: 4096, tools: [WEATHER], thinking: { type: "adaptive" as const } };
    const beta = { headers: { "anthropic-beta": "interleaved-thinking-2025-05-14" } };
    const first = streamed ? await sdk.messages.stream({ ...ask, messages }, beta).finalMessage() : await sdk.messages.create({ ...ask, messages }, beta);
    expect(anthropic.requests[0]?.headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14");
    expect(first.stop_reason).toBe("tool_use");
    expect(first.content).toEqual([
      { type: "thinking", thinking: "Taipei first.", signature: signatureOf("Taipei first.") },
      { type: "redacted_thinking", data: REDACTED },
      { type: "tool_use", id: "toolu_taipei", name: "get_weather", input: { city: "Taipei" } },
      { type: "thinking", thinking: "Then Tainan.", signature: signatureOf("Then Tainan.") },
      { type: "tool_use", id: "toolu_tainan", name: "get_weather", input: { city: "Tainan" } },
    ]);
    messages.push(
      { role: "assistant", content: first.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_taipei", content: "25°C" }, { type: "tool_result", tool_use_id: "toolu_tainan", content: "28°C" }] },
    );
    const second = await sdk.messages.create({ ...ask, messages }, beta);
    expect(second.content).toEqual([{ type: "text", text: "25°C and 28°C." }]);
    // The scripted server, as the real API, would have refused the follow-up had a block been dropped, altered or moved.
    expect(anthropic.requests[1]?.body.messages[1].content).toEqual(first.content);
  });

  it("passes the client's redacted thinking on as it came, and the upstream's refusal of altered thinking back as one error", async () => {
    const anthropic = upstream(await startAnthropicServer({ replies: [{ blocks: [{ redacted: "opaque-1" }, { toolUse: { name: "get_weather", input: { city: "Taipei" }, id: "toolu_w" } }] }] }));
    harness = await startHarness({ llm: { provider: "anthropic", baseURL: anthropic.url, model: "claude-haiku-4-5", apiKey: "test-key" } });
    const sdk = client(harness);
    const ask = { model: "claude-haiku-4-5", max_tokens: 4096, tools: [WEATHER], thinking: { type: "enabled" as const, budget_tokens: 1024 } };
    const first = await sdk.messages.create({ ...ask, messages: [{ role: "user", content: "Weather?" }] });
    expect(first.content[0]).toEqual({ type: "redacted_thinking", data: "opaque-1" });
    const altered = sdk.messages.create({
      ...ask,
      messages: [
        { role: "user", content: "Weather?" },
        { role: "assistant", content: [{ type: "redacted_thinking", data: "opaque-2" }, ...first.content.slice(1)] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_w", content: "25°C" }] },
      ],
    });
    await expect(altered).rejects.toMatchObject({ status: 502, message: expect.stringContaining("cannot be modified") });
    expect(anthropic.requests[1]?.body.messages[1].content[0]).toEqual({ type: "redacted_thinking", data: "opaque-2" });
  });

  it("sends adaptive and disabled thinking to Anthropic as they are", async () => {
    const anthropic = upstream(await startAnthropicServer({ replies: [{ thinking: "Hmm.", text: "Today." }, { text: "Today." }] }));
    harness = await startHarness({ llm: { provider: "anthropic", baseURL: anthropic.url, model: "claude-haiku-4-5", apiKey: "test-key" } });
    const sdk = client(harness);
    const adaptive = await sdk.messages.create({ model: "claude-haiku-4-5", max_tokens: 1024, messages: ASK, thinking: { type: "adaptive" } });
    expect(adaptive.content[0]).toMatchObject({ type: "thinking", thinking: "Hmm." });
    await sdk.messages.create({ model: "claude-haiku-4-5", max_tokens: 1024, messages: ASK, thinking: { type: "disabled" } });
    expect(anthropic.requests.map((request) => request.body.thinking)).toEqual([{ type: "adaptive" }, { type: "disabled" }]);
  });

  it.each([false, true])("carries a Gemini 3 thought signature in the tool_use id and gives Gemini its call id and signature back on the next turn; a call without one keeps its id (streamed: %s)", async (streamed) => {
    // Gemini signs the first of parallel calls only; its signatures are base64, + / = included.
    const SIGNATURE = "CiQBcsjafSig+/Ab==";
    const calls = [
      { name: "get_weather", args: { city: "Taipei" }, id: "fc-7Hk2", thoughtSignature: SIGNATURE },
      { name: "get_weather", args: { city: "Tainan" } },
    ];
    const gemini = upstream(await startGeminiServer({ replies: [{ functionCalls: calls }, { text: "25°C and 28°C." }] }));
    harness = await startHarness({ llm: { provider: "gemini", baseURL: gemini.url, model: "gemini-3-flash-preview", apiKey: "test-key" } });
    const sdk = client(harness);
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "Weather in Taipei and Tainan?" }];
    const params = { model: "gemini-3-flash-preview", max_tokens: 1024, tools: [WEATHER], messages };
    const first = streamed ? await sdk.messages.stream(params).finalMessage() : await sdk.messages.create(params);
    const uses = first.content.filter((block): block is Anthropic.ToolUseBlock => block.type === "tool_use");
    expect(uses.map((use) => use.input)).toEqual([{ city: "Taipei" }, { city: "Tainan" }]);
    // Letters, digits, _ and - only, as Anthropic's ids are.
    expect(uses[0]?.id).toBe(`fc-7Hk2__tbsig__${Buffer.from(SIGNATURE).toString("base64url")}`);
    expect(uses[0]?.id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(uses[1]?.id).toMatch(/^toolbridge-call-[0-9a-f-]+$/);
    messages.push({ role: "assistant", content: first.content });
    messages.push({ role: "user", content: uses.map((use, i): Anthropic.ToolResultBlockParam => ({ type: "tool_result", tool_use_id: use.id, content: i === 0 ? "25°C" : "28°C" })) });
    const second = await sdk.messages.create({ ...params, messages });
    expect(second.content).toEqual([{ type: "text", text: "25°C and 28°C." }]);
    const [model, results] = (gemini.requests[1]?.body.contents as Array<{ parts: unknown[] }>).slice(1);
    expect(model?.parts).toEqual([
      { functionCall: { name: "get_weather", args: { city: "Taipei" }, id: "fc-7Hk2" }, thoughtSignature: SIGNATURE },
      { functionCall: { name: "get_weather", args: { city: "Tainan" } } },
    ]);
    expect(results?.parts).toEqual([
      { functionResponse: { name: "get_weather", response: { output: "25°C" }, id: "fc-7Hk2" } },
      { functionResponse: { name: "get_weather", response: { output: "28°C" } } },
    ]);
  });

  it("gives Gemini 3's refusal of a call that lost its signature back as one error, when the client sends the id without it", async () => {
    const gemini = upstream(await startGeminiServer({ replies: [{ functionCalls: [{ name: "get_weather", args: { city: "Taipei" }, id: "fc-1", thoughtSignature: "c2ln" }] }] }));
    harness = await startHarness({ llm: { provider: "gemini", baseURL: gemini.url, model: "gemini-3-flash-preview", apiKey: "test-key" } });
    const sdk = client(harness);
    const params = { model: "gemini-3-flash-preview", max_tokens: 1024, tools: [WEATHER] };
    const first = await sdk.messages.create({ ...params, messages: [{ role: "user", content: "Weather?" }] });
    const use = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === "tool_use");
    expect(use?.id).toMatch(/^fc-1__tbsig__/);
    const unsigned = { ...use, id: "fc-1" } as Anthropic.ToolUseBlock;
    const lost = sdk.messages.create({
      ...params,
      messages: [{ role: "user", content: "Weather?" }, { role: "assistant", content: [unsigned] }, { role: "user", content: [{ type: "tool_result", tool_use_id: "fc-1", content: "25°C" }] }],
    });
    await expect(lost).rejects.toMatchObject({ message: expect.stringContaining("Function call is missing a thought_signature") });
    expect(gemini.requests).toHaveLength(2);
  });

  it("refuses a tool_use id or tool_use_id longer than 4194304 characters with one line naming it, before asking the model", async () => {
    const gemini = upstream(await startGeminiServer({ replies: [] }));
    harness = await startHarness({ llm: { provider: "gemini", baseURL: gemini.url, model: "gemini-3-flash-preview", apiKey: "test-key" } });
    const sdk = client(harness);
    const long = `fc-1__tbsig__${"A".repeat(4 * 1024 * 1024)}`;
    const ask = (useId: string, resultId: string) =>
      sdk.messages
        .create({
          model: "gemini-3-flash-preview",
          max_tokens: 1024,
          tools: [WEATHER],
          messages: [
            { role: "user", content: "Weather?" },
            { role: "assistant", content: [{ type: "tool_use", id: useId, name: "get_weather", input: { city: "Taipei" } }] },
            { role: "user", content: [{ type: "tool_result", tool_use_id: resultId, content: "25°C" }] },
          ],
        })
        .catch((e: unknown) => (e as InstanceType<typeof Anthropic.BadRequestError>).error);
    expect(await ask(long, "fc-1")).toEqual({ type: "error", error: { type: "invalid_request_error", message: "messages[1].content[0].id: more than the 4194304 characters a tool call id may hold" } });
    expect(await ask("fc-1", long)).toEqual({ type: "error", error: { type: "invalid_request_error", message: "messages[2].content[0].tool_use_id: more than the 4194304 characters a tool call id may hold" } });
    expect(gemini.requests).toHaveLength(0);
  });

  it("sends thinking to Gemini as thinkingConfig (a budget, -1 for adaptive, 0 when off) and answers with its thoughts as thinking blocks", async () => {
    const gemini = upstream(await startGeminiServer({ replies: [{ thoughts: "Thinking it over.", text: "Today." }, { thoughts: "More.", text: "Today." }, { text: "Today." }] }));
    harness = await startHarness({ llm: { provider: "gemini", baseURL: gemini.url, model: "gemini-2.5-flash", apiKey: "test-key" } });
    const sdk = client(harness);
    const message = await sdk.messages.create({ model: "gemini-2.5-flash", max_tokens: 4096, messages: ASK, thinking: { type: "enabled", budget_tokens: 1024 } });
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "text"]);
    expect(message.content[0]).toMatchObject({ type: "thinking", thinking: "Thinking it over." });
    await sdk.messages.create({ model: "gemini-2.5-flash", max_tokens: 4096, messages: ASK, thinking: { type: "adaptive" } });
    await sdk.messages.create({ model: "gemini-2.5-flash", max_tokens: 4096, messages: ASK, thinking: { type: "disabled" } });
    expect(gemini.requests.map((request) => request.body.generationConfig.thinkingConfig)).toEqual([
      { includeThoughts: true, thinkingBudget: 1024 },
      { includeThoughts: true, thinkingBudget: -1 },
      { thinkingBudget: 0 },
    ]);
  });
});
