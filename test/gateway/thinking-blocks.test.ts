import Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { INTERLEAVED_WEATHER_CALLS, REDACTED_THINKING, signatureOf, startAnthropicServer, type AnthropicScriptReply } from "../support/anthropic-server.js";
import type { ScriptedServer } from "../support/scripted-server.js";
import { startGeminiServer } from "../support/gemini-server.js";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";
import { openaiClient, startHarness, type Harness } from "./harness.js";

/**
 * Signed and redacted thinking through the gateway's OpenAI-shaped APIs: the openai SDK against
 * the gateway, in front of the scripted Anthropic server, which (as the real API) refuses a
 * tool-using turn whose signed thinking is not given back whole and in place.
 */

let harness: Harness | undefined;
let anthropic: ScriptedServer | undefined;
afterEach(async () => {
  await harness?.close();
  await anthropic?.close();
  harness = anthropic = undefined;
});

const REDACTED = REDACTED_THINKING;
const MODEL = "claude-haiku-4-5";
const WEATHER = { name: "get_weather", description: "Weather in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };

async function start(replies: AnthropicScriptReply[]): Promise<{ sdk: OpenAI; upstream: ScriptedServer }> {
  const upstream = await startAnthropicServer({ replies });
  anthropic = upstream;
  harness = await startHarness({ llm: { provider: "anthropic", baseURL: upstream.url, model: MODEL, apiKey: "test-key" } });
  return { sdk: openaiClient(harness), upstream };
}

const THOUGHT_THEN_CALL: AnthropicScriptReply = {
  blocks: [{ thinking: "The weather needs a tool." }, { redacted: REDACTED }, { toolUse: { name: "get_weather", input: { city: "Taipei" }, id: "toolu_taipei" } }],
};
const SIGNED = { type: "thinking", thinking: "The weather needs a tool.", signature: signatureOf("The weather needs a tool.") };

describe("chat completions: thinking_blocks", () => {
  it.each([false, true])("hands the signed and redacted thinking to the client, and sends the client's blocks back before its tool call (streamed: %s)", async (streamed) => {
    const { sdk, upstream } = await start([THOUGHT_THEN_CALL, { text: "25°C in Taipei." }]);
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Weather in Taipei?" }];
    const ask = { model: MODEL, tools: [{ type: "function" as const, function: WEATHER }], reasoning_effort: "low" as const };
    let assistant: Record<string, unknown>;
    if (streamed) {
      const blocks: unknown[] = [];
      let reasoning = "";
      const calls: OpenAI.ChatCompletionMessageToolCall[] = [];
      for await (const chunk of await sdk.chat.completions.create({ ...ask, messages, stream: true })) {
        const delta = chunk.choices[0]?.delta as Record<string, unknown> | undefined;
        if (Array.isArray(delta?.thinking_blocks)) blocks.push(...delta.thinking_blocks);
        if (typeof delta?.reasoning_content === "string") reasoning += delta.reasoning_content;
        for (const call of (delta?.tool_calls ?? []) as OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall[]) calls.push({ id: call.id ?? "", type: "function", function: { name: call.function?.name ?? "", arguments: call.function?.arguments ?? "" } });
      }
      expect(reasoning).toBe("The weather needs a tool.");
      assistant = { role: "assistant", content: null, reasoning_content: reasoning, thinking_blocks: blocks, tool_calls: calls };
    } else {
      const completion = await sdk.chat.completions.create({ ...ask, messages });
      assistant = completion.choices[0]?.message as unknown as Record<string, unknown>;
      expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
    }
    expect(assistant.thinking_blocks).toEqual([SIGNED, { type: "redacted_thinking", data: REDACTED }]);
    const call = (assistant.tool_calls as OpenAI.ChatCompletionMessageToolCall[])[0];
    messages.push(assistant as unknown as OpenAI.ChatCompletionMessageParam, { role: "tool", tool_call_id: call?.id ?? "", content: "25°C, sunny" });
    const second = await sdk.chat.completions.create({ ...ask, messages });
    expect(second.choices[0]?.message.content).toBe("25°C in Taipei.");
    // reasoning_effort turns Anthropic's thinking on, with LiteLLM's budget for "low".
    expect(upstream.requests[0]?.body.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
    // The scripted server refused the follow-up had the thinking been dropped, altered or moved.
    expect(upstream.requests[1]?.body.messages[1].content).toEqual([SIGNED, { type: "redacted_thinking", data: REDACTED }, { type: "tool_use", id: "toolu_taipei", name: "get_weather", input: { city: "Taipei" } }]);
  });

  it("gives no thinking_blocks for reasoning nobody signed", async () => {
    harness = await startHarness({ replies: [{ reasoning: "Plain thought.", text: "Hi." }] });
    const completion = await openaiClient(harness).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "Hi" }] });
    const message = completion.choices[0]?.message as unknown as Record<string, unknown>;
    expect(message.reasoning_content).toBe("Plain thought.");
    expect(message).not.toHaveProperty("thinking_blocks");
  });

  it("refuses a malformed thinking block with 400 naming the message", async () => {
    const { sdk } = await start([]);
    const bad = sdk.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "Hi" }, { role: "assistant", content: "x", thinking_blocks: [{ type: "thinking", signature: "s" }] } as OpenAI.ChatCompletionMessageParam, { role: "user", content: "Again" }],
    });
    await expect(bad).rejects.toMatchObject({ status: 400, message: expect.stringContaining("messages.1") });
  });

  it("refuses an oversized thinking block with one 400 naming the message and block, in chat completions and the Messages API alike, and asks no model", async () => {
    const { sdk, upstream } = await start([]);
    const huge = "A".repeat(4 * 1024 * 1024 + 1);
    const chat = sdk.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "Hi" }, { role: "assistant", content: "x", thinking_blocks: [SIGNED, { type: "redacted_thinking", data: huge }] } as OpenAI.ChatCompletionMessageParam, { role: "user", content: "Again" }],
    });
    await expect(chat).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/^400 messages\.1\.thinking_blocks\.1\.data: more than the 4194304 characters a thinking block may hold$/) });
    const messages = new Anthropic({ baseURL: harness?.gateway.url, apiKey: "none", maxRetries: 0 }).messages.create({
      model: MODEL,
      max_tokens: 100,
      messages: [{ role: "user", content: "Hi" }, { role: "assistant", content: [{ type: "thinking", thinking: huge, signature: "s" }, { type: "text", text: "x" }] }, { role: "user", content: "Again" }],
    });
    await expect(messages).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/messages\[1\]\.content\[0\]\.thinking: more than the 4194304 characters/) });
    expect(upstream.requests).toHaveLength(0);
  });
});

describe("Responses: reasoning items with encrypted_content", () => {
  type Item = Record<string, unknown>;

  async function respond(sdk: OpenAI, body: Record<string, unknown>, streamed: boolean): Promise<Item[]> {
    if (!streamed) return (await sdk.responses.create(body as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming)).output as unknown as Item[];
    const stream = sdk.responses.stream(body as unknown as OpenAI.Responses.ResponseCreateParamsStreaming);
    return (await stream.finalResponse()).output as unknown as Item[];
  }

  it.each([false, true])("keeps interleaved signed and redacted thinking in place among the function calls, and takes it back as input (store: false; streamed: %s)", async (streamed) => {
    const { sdk, upstream } = await start([INTERLEAVED_WEATHER_CALLS, { text: "25°C and 28°C." }]);
    const ask = { model: MODEL, store: false, include: ["reasoning.encrypted_content"], reasoning: { effort: "low" }, tools: [{ type: "function", ...WEATHER, strict: false }] };
    const input: Item[] = [{ role: "user", content: "Weather in Taipei and Tainan?" }];
    const output = await respond(sdk, { ...ask, input }, streamed);
    expect(output.map((item) => item.type)).toEqual(["reasoning", "reasoning", "function_call", "reasoning", "function_call"]);
    // A budget and tools on a Claude 4 model: the interleaved-thinking beta, which the scripted server wants for thinking between calls.
    expect(upstream.requests[0]?.headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14");
    expect(output[0]).toMatchObject({ summary: [{ type: "summary_text", text: "Taipei first." }], encrypted_content: expect.stringMatching(/^tbr1\./) });
    expect(output[1]).toMatchObject({ summary: [], encrypted_content: expect.any(String) });
    expect(output[3]).toMatchObject({ summary: [{ text: "Then Tainan." }] });
    const results = output.filter((item) => item.type === "function_call").map((item) => ({ type: "function_call_output", call_id: item.call_id, output: item.call_id === "toolu_taipei" ? "25°C" : "28°C" }));
    const second = await respond(sdk, { ...ask, input: [...input, ...output, ...results] }, false);
    expect(second.at(-1)).toMatchObject({ type: "message", content: [{ type: "output_text", text: "25°C and 28°C." }] });
    expect(upstream.requests[1]?.body.messages[1].content).toEqual([
      { type: "thinking", thinking: "Taipei first.", signature: signatureOf("Taipei first.") },
      { type: "redacted_thinking", data: REDACTED },
      { type: "tool_use", id: "toolu_taipei", name: "get_weather", input: { city: "Taipei" } },
      { type: "thinking", thinking: "Then Tainan.", signature: signatureOf("Then Tainan.") },
      { type: "tool_use", id: "toolu_tainan", name: "get_weather", input: { city: "Tainan" } },
    ]);
  });

  it("streams each reasoning item as an added and a done event of one id and index, announced in progress and done with its encrypted_content (given whether or not include asks)", async () => {
    const { sdk } = await start([INTERLEAVED_WEATHER_CALLS]);
    const events: Item[] = [];
    const stream = await sdk.responses.create({ model: MODEL, reasoning: { effort: "low" }, tools: [{ type: "function", ...WEATHER, strict: false }], input: "Weather in Taipei and Tainan?", stream: true });
    for await (const event of stream) events.push(event as unknown as Item);
    const numbers = events.map((event) => event.sequence_number as number);
    expect(numbers).toEqual(numbers.map((_, i) => i));
    const added = events.filter((event) => event.type === "response.output_item.added");
    const done = events.filter((event) => event.type === "response.output_item.done");
    expect(added.map((event) => event.output_index)).toEqual([0, 1, 2, 3, 4]);
    expect(done.map((event) => event.output_index)).toEqual([0, 1, 2, 3, 4]);
    const item = (event: Item) => event.item as Item;
    // Announced in progress, as every item; what a reasoning item holds comes with its done event.
    for (const event of added) expect(item(event).status).toBe("in_progress");
    for (const event of added) expect(item(event)).not.toHaveProperty("encrypted_content");
    expect(done.map((event) => item(event).id)).toEqual(added.map((event) => item(event).id));
    expect(done.map((event) => item(event).type)).toEqual(["reasoning", "reasoning", "function_call", "reasoning", "function_call"]);
    for (const index of [0, 1, 3]) {
      expect(item(done[index] as Item)).toMatchObject({ status: "completed", encrypted_content: expect.stringMatching(/^tbr1\./) });
      // Each item is done before the next is added: the thinking stays in its place among the calls.
      expect(events.indexOf(done[index] as Item)).toBeLessThan(events.indexOf(added[index + 1] as Item));
    }
    expect(item(done[0] as Item).summary).toEqual([{ type: "summary_text", text: "Taipei first." }]);
    const completed = events.at(-1) as Item;
    expect(completed.type).toBe("response.completed");
    expect((completed.response as Item).output).toEqual(done.map(item));
  });

  it("keeps signed thinking in a stored response, for a conversation continued by previous_response_id", async () => {
    const { sdk, upstream } = await start([THOUGHT_THEN_CALL, { text: "25°C in Taipei." }]);
    const tools = [{ type: "function" as const, ...WEATHER, strict: false }];
    const first = await sdk.responses.create({ model: MODEL, reasoning: { effort: "low" }, tools, input: "Weather in Taipei?" });
    const call = first.output.find((item) => item.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall;
    const second = await sdk.responses.create({ model: MODEL, reasoning: { effort: "low" }, tools, previous_response_id: first.id, input: [{ type: "function_call_output", call_id: call.call_id, output: "25°C" }] });
    expect(second.output_text).toBe("25°C in Taipei.");
    expect(upstream.requests[1]?.body.messages[1].content.slice(0, 2)).toEqual([SIGNED, { type: "redacted_thinking", data: REDACTED }]);
  });

  it("refuses an encrypted_content of the gateway's that was altered, naming the item, and ignores one from another service", async () => {
    const { sdk, upstream } = await start([THOUGHT_THEN_CALL, { text: "Fine." }]);
    const tools = [{ type: "function" as const, ...WEATHER, strict: false }];
    const ask = { model: MODEL, store: false, reasoning: { effort: "low" as const }, tools };
    const output = (await sdk.responses.create({ ...ask, input: "Weather?" })).output as unknown as Item[];
    const call = output.find((item) => item.type === "function_call") as Item;
    const result = { type: "function_call_output", call_id: call.call_id, output: "25°C" };
    const altered = output.map((item, i) => (i === 0 ? { ...item, encrypted_content: `${String(item.encrypted_content).slice(0, -6)}AAAA` } : item));
    const refused = sdk.responses.create({ ...ask, input: [{ role: "user", content: "Weather?" }, ...altered, result] as OpenAI.Responses.ResponseInput });
    await expect(refused).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/input\[1\]\.encrypted_content: /) });
    const huge = output.map((item, i) => (i === 0 ? { ...item, encrypted_content: `tbr1.${"A".repeat(5 * 1024 * 1024)}` } : item));
    await expect(sdk.responses.create({ ...ask, input: [{ role: "user", content: "Weather?" }, ...huge, result] as OpenAI.Responses.ResponseInput })).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/input\[1\]\.encrypted_content: holds 5242885 characters, more than the 4194304/) });
    expect(upstream.requests).toHaveLength(1);
    // OpenAI's own encrypted reasoning means nothing here: the item counts as its summary alone.
    const foreign = [{ type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Earlier." }], encrypted_content: "gAAAAABo-openai-opaque" }];
    const answered = await sdk.responses.create({ model: MODEL, store: false, input: [{ role: "user", content: "Hi" }, ...foreign, { role: "assistant", content: "Hello." }, { role: "user", content: "Again" }] as OpenAI.Responses.ResponseInput });
    expect(answered.status).toBe("completed");
  });
});

describe("Gemini's thought signatures on the client's calls", () => {
  it("go out as extra_content.google.thought_signature (as Google's OpenAI-compatible API sends them) in chat completions and Responses, and back to Gemini with the call", async () => {
    const call = { name: "get_weather", args: { city: "Taipei" }, thoughtSignature: "CiQBcsjafSig" };
    const gemini = await startGeminiServer({ replies: [{ functionCalls: [call] }, { text: "25°C." }, { functionCalls: [call] }, { text: "25°C." }] });
    anthropic = gemini;
    harness = await startHarness({ llm: { provider: "gemini", baseURL: gemini.url, model: "gemini-2.5-flash", apiKey: "test-key" } });
    const sdk = openaiClient(harness);
    const signed = (index: number) => (gemini.requests[index]?.body.contents as Array<{ parts: Array<Record<string, unknown>> }>).flatMap((content) => content.parts).find((part) => part.functionCall);
    // Chat completions, streamed: the SDK's accumulated message keeps the field as it came in the delta.
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Weather?" }];
    const tools = [{ type: "function" as const, function: WEATHER }];
    let calls: Array<Record<string, unknown>> = [];
    for await (const chunk of await sdk.chat.completions.create({ model: "gemini-2.5-flash", tools, messages, stream: true })) calls.push(...((chunk.choices[0]?.delta.tool_calls ?? []) as unknown as Array<Record<string, unknown>>));
    expect(calls[0]).toMatchObject({ extra_content: { google: { thought_signature: "CiQBcsjafSig" } } });
    calls = calls.map(({ index: _index, ...rest }) => rest);
    messages.push({ role: "assistant", content: null, tool_calls: calls } as unknown as OpenAI.ChatCompletionMessageParam, { role: "tool", tool_call_id: String(calls[0]?.id), content: "25°C" });
    expect((await sdk.chat.completions.create({ model: "gemini-2.5-flash", tools, messages })).choices[0]?.message.content).toBe("25°C.");
    expect(signed(1)).toMatchObject({ functionCall: { name: "get_weather" }, thoughtSignature: "CiQBcsjafSig" });
    // Responses: on the function_call item.
    const first = await sdk.responses.create({ model: "gemini-2.5-flash", store: false, tools: [{ type: "function", ...WEATHER, strict: false }], input: "Weather?" });
    const item = first.output.find((entry) => entry.type === "function_call") as unknown as Record<string, unknown>;
    expect(item).toMatchObject({ extra_content: { google: { thought_signature: "CiQBcsjafSig" } } });
    const second = await sdk.responses.create({ model: "gemini-2.5-flash", store: false, tools: [{ type: "function", ...WEATHER, strict: false }], input: [{ role: "user", content: "Weather?" }, ...first.output, { type: "function_call_output", call_id: String(item.call_id), output: "25°C" }] as OpenAI.Responses.ResponseInput });
    expect(second.output_text).toBe("25°C.");
    expect(signed(3)).toMatchObject({ thoughtSignature: "CiQBcsjafSig" });
  });

  it("refuses a tool call id or call_id longer than 4194304 characters with one line naming it, before asking the model", async () => {
    const gemini = await startGeminiServer({ replies: [] });
    anthropic = gemini;
    harness = await startHarness({ llm: { provider: "gemini", baseURL: gemini.url, model: "gemini-2.5-flash", apiKey: "test-key" } });
    const sdk = openaiClient(harness);
    const long = `fc-1__tbsig__${"A".repeat(4 * 1024 * 1024)}`;
    const call = { id: long, type: "function" as const, function: { name: "get_weather", arguments: "{}" } };
    const chat = sdk.chat.completions.create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "Weather?" }, { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: "fc-1", content: "25°C" }] });
    await expect(chat).rejects.toMatchObject({ status: 400, message: "400 messages.1.tool_calls.0.id: more than the 4194304 characters a tool call id may hold" });
    const responses = sdk.responses.create({ model: "gemini-2.5-flash", store: false, input: [{ role: "user", content: "Weather?" }, { type: "function_call", call_id: "fc-1", name: "get_weather", arguments: "{}" }, { type: "function_call_output", call_id: long, output: "25°C" }] });
    await expect(responses).rejects.toMatchObject({ status: 400, message: "400 input[2].call_id: more than the 4194304 characters a tool call id may hold" });
    expect(gemini.requests).toHaveLength(0);
  });
});
