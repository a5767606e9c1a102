import { join } from "node:path";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { openaiClient, startHarness, type Harness } from "./harness.js";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";

/** The `openai` SDK against the gateway, the gateway against the scripted vLLM server, the bundled time server behind it. */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const client = openaiClient;

const DATE_CALL = { toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }], usage: { prompt_tokens: 100, completion_tokens: 10 } };
const ANSWER = { text: "Today is **7 January 2026**.", usage: { prompt_tokens: 150, completion_tokens: 8 } };
const PROMPT_DATE_CALL = { text: 'Let me check.\n<tool_call>\n{"name": "get-date", "arguments": {"format": "date-only"}}\n</tool_call>', usage: { prompt_tokens: 300, completion_tokens: 20 } };

function toolMessages(h: Harness, request: number): { role: string; content: unknown }[] {
  return (h.upstream.chatRequests[request]?.body.messages ?? []).filter((m: { role: string }) => m.role === "tool");
}

describe.each([
  { mode: "native", toolsEnabled: true, first: DATE_CALL },
  { mode: "prompt", toolsEnabled: false, first: PROMPT_DATE_CALL },
] as const)("$mode mode", ({ mode, toolsEnabled, first }) => {
  it("runs the tool loop inside and answers once, with the usage of every round", async () => {
    harness = await startHarness({ replies: [first, ANSWER], toolsEnabled });
    const completion = await client(harness).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "What is the date today?" }] });
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe("stop");
    expect(choice?.message.tool_calls).toBeUndefined();
    expect(choice?.message.content).toContain("Today is **7 January 2026**.");
    expect(choice?.message.content).not.toContain("tool_call");
    expect(completion.usage).toEqual({ prompt_tokens: 250 + (mode === "prompt" ? 200 : 0), completion_tokens: 18 + (mode === "prompt" ? 10 : 0), total_tokens: 268 + (mode === "prompt" ? 210 : 0) });
    const lastRequest = harness.upstream.chatRequests.at(-1);
    // The tool result reached the model: natively as a tool message, in prompt mode as text.
    expect(JSON.stringify(lastRequest?.body.messages)).toContain(String(new Date().getFullYear()));
    if (mode === "prompt") expect(lastRequest?.body.tools).toBeUndefined();
    else expect(toolMessages(harness, 1)).toHaveLength(1);
  });

  it("streams one answer: no tool_calls delta, one finish_reason, usage summed", async () => {
    harness = await startHarness({ replies: [first, ANSWER], toolsEnabled });
    const stream = await client(harness).chat.completions.create({
      model: DEFAULT_VLLM_MODEL,
      messages: [{ role: "user", content: "What is the date today?" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = "";
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        expect(choice.delta.tool_calls).toBeUndefined();
        content += choice.delta.content ?? "";
        if (choice.finish_reason) finishes.push(choice.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(finishes).toEqual(["stop"]);
    expect(content).toContain("Today is **7 January 2026**.");
    expect(content).not.toContain("<tool_call>");
    expect(usage?.total_tokens).toBe(268 + (mode === "prompt" ? 210 : 0));
  });

  it("hands calls of the client's own tools back as tool_calls, and goes on with the client's results", async () => {
    const weather = { toolCalls: [{ name: "get_weather", arguments: { city: "Taipei" } }] };
    const promptWeather = { text: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Taipei"}}\n</tool_call>' };
    harness = await startHarness({ replies: [mode === "prompt" ? promptWeather : weather, { text: "It is 25°C in Taipei." }], toolsEnabled });
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: "function", function: { name: "get_weather", description: "Weather in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Weather in Taipei?" }];
    const sdk = client(harness);
    const stream = sdk.chat.completions.stream({ model: DEFAULT_VLLM_MODEL, messages, tools, stream: true });
    const first = await stream.finalChatCompletion();
    const choice = first.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    const call = choice?.message.tool_calls?.[0];
    expect(call?.type === "function" ? call.function : undefined).toEqual({ name: "get_weather", arguments: '{"city":"Taipei"}' });
    // The model was offered both the client's tool and the hub's.
    const offered = harness.upstream.chatRequests.at(-1)?.body.tools?.map((t: { function: { name: string } }) => t.function.name) ?? [];
    if (mode === "native") expect(offered.sort()).toEqual(["get-date", "get_weather"]);

    messages.push(choice!.message as OpenAI.ChatCompletionMessageParam, { role: "tool", tool_call_id: call!.id, content: "25°C, sunny" });
    const second = await sdk.chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages, tools });
    expect(second.choices[0]?.finish_reason).toBe("stop");
    expect(second.choices[0]?.message.content).toBe("It is 25°C in Taipei.");
    expect(JSON.stringify(harness.upstream.chatRequests.at(-1)?.body.messages)).toContain("25°C, sunny");
  });
});

describe("the gateway", () => {
  it("lets the client's tool win a name clash with an MCP tool, and says so in a header", async () => {
    harness = await startHarness({ replies: [{ toolCalls: [{ name: "get-date", arguments: {} }] }] });
    const tools: OpenAI.ChatCompletionTool[] = [{ type: "function", function: { name: "get-date", parameters: { type: "object", properties: {} } } }];
    const { data, response } = await client(harness)
      .chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "date?" }], tools })
      .withResponse();
    expect(response.headers.get("x-toolbridge-shadowed-tools")).toBe("get-date");
    expect(data.choices[0]?.finish_reason).toBe("tool_calls");
    const offered = harness.upstream.chatRequests[0]?.body.tools.map((t: { function: { name: string; parameters: unknown } }) => t.function);
    expect(offered).toHaveLength(1);
    expect(offered[0].parameters).toEqual({ type: "object", properties: {} });
  });

  it("refuses a tool the policy does not allow with a tool result the model sees", async () => {
    harness = await startHarness({ replies: [DATE_CALL, { text: "I could not check the date." }], trustTime: false, approve: "ask" });
    const completion = await client(harness).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "date?" }] });
    expect(completion.choices[0]?.message.content).toBe("I could not check the date.");
    expect(JSON.stringify(toolMessages(harness, 1))).toContain("Not run");
    const metrics = await harness.gateway.metrics.registry.getSingleMetricAsString("toolbridge_gateway_tool_calls_total");
    expect(metrics).toContain('server="time",outcome="not-approved"} 1');
  });

  it("runs a read-only tool of an untrusted server when approve is readonly", async () => {
    harness = await startHarness({ replies: [DATE_CALL, ANSWER], trustTime: false, approve: "readonly" });
    await client(harness).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "date?" }] });
    expect(JSON.stringify(toolMessages(harness, 1))).not.toContain("Not run");
  });

  it("shows tool activity as reasoning lines when the request asks for it", async () => {
    harness = await startHarness({ replies: [DATE_CALL, ANSWER] });
    const stream = await client(harness).chat.completions.create(
      { model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "date?" }], stream: true },
      { headers: { "x-toolbridge-tool-activity": "1" } },
    );
    let reasoning = "";
    for await (const chunk of stream) reasoning += (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? "";
    expect(reasoning).toContain('[tool] get-date {"format":"date-only"}');
    expect(reasoning).toContain(`[tool] get-date ok: `);
    expect(reasoning).toContain(String(new Date().getFullYear()));
  });

  it("goes straight to prompt mode for a model it saw refuse native tools", async () => {
    harness = await startHarness({ replies: [{ text: "one" }, { text: "two" }], toolsEnabled: false });
    const sdk = client(harness);
    await sdk.chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "hi" }] });
    const afterFirst = harness.upstream.chatRequests.length;
    const second = await sdk.chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "hi" }] });
    expect(second.choices[0]?.message.content).toBe("two");
    expect(harness.upstream.chatRequests.length - afterFirst).toBe(1);
  });

  it("cancels the turn and its upstream request when the client disconnects mid-stream", async () => {
    harness = await startHarness({ replies: [{ text: "a long answer that never ends", stallAfterChunks: 3 }] });
    const controller = new AbortController();
    const stream = await client(harness).chat.completions.create(
      { model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "talk" }], stream: true },
      { signal: controller.signal },
    );
    let seen = "";
    try {
      for await (const chunk of stream) {
        seen += chunk.choices[0]?.delta.content ?? "";
        if (seen !== "") controller.abort();
      }
    } catch {
      // the SDK may end the iteration or throw on abort
    }
    expect(seen).not.toBe("");
    // The upstream never finishes: the turn can end only by the disconnect cancelling it.
    await expect.poll(async () => (await harness!.gateway.metrics.inFlight.get()).values[0]?.value, { timeout: 10_000 }).toBe(0);
  });

  it("cancels a running MCP call when the client disconnects", async () => {
    const everything = join(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    harness = await startHarness({
      servers: { everything: { command: process.execPath, args: [everything, "stdio"], trust: true } },
      replies: [{ toolCalls: [{ name: "trigger-long-running-operation", arguments: { duration: 60, steps: 60 } }] }],
    });
    const controller = new AbortController();
    const stream = await client(harness).chat.completions.create(
      { model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "run it" }], stream: true, toolbridge: { tool_activity: true } } as OpenAI.ChatCompletionCreateParamsStreaming,
      { signal: controller.signal },
    );
    try {
      for await (const chunk of stream) {
        // The call has started: leave.
        if (((chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? "").includes("[tool] trigger-long-running-operation")) controller.abort();
      }
    } catch {
      // the SDK may end the iteration or throw on abort
    }
    // The operation takes a minute; the turn ends long before only if the call was cancelled.
    await expect.poll(async () => (await harness!.gateway.metrics.inFlight.get()).values[0]?.value, { timeout: 10_000 }).toBe(0);
    expect(await harness.gateway.metrics.registry.getSingleMetricAsString("toolbridge_gateway_tool_calls_total")).toContain('server="everything",outcome="cancelled"} 1');
  });

  it("lists the upstream's models and the config's aliases", async () => {
    harness = await startHarness({ aliases: { fast: DEFAULT_VLLM_MODEL } });
    const ids: string[] = [];
    for await (const model of client(harness).models.list()) ids.push(model.id);
    expect(ids).toEqual([DEFAULT_VLLM_MODEL, "other-model", "fast"]);
  });

  it("answers an unknown model with 404 model_not_found", async () => {
    harness = await startHarness();
    const error = await client(harness)
      .chat.completions.create({ model: "no-such-model", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");
  });
});

describe("access", () => {
  const KEY = "tb-test-key-0123456789abcdef";

  it("requires a configured key, and accepts it", async () => {
    harness = await startHarness({ replies: [{ text: "hello" }], apiKeys: [KEY] });
    await expect(client(harness, "wrong-key-0123456789").models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const completion = await client(harness, KEY).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "hi" }] });
    expect(completion.choices[0]?.message.content).toBe("hello");
  });

  it("answers 429 past the per-key concurrency limit and 413 past the size limit", async () => {
    harness = await startHarness({ replies: [{ kind: "hang" }], maxConcurrentPerKey: 1, maxRequestBytes: 2000 });
    const sdk = client(harness);
    const controller = new AbortController();
    const hanging = sdk.chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "wait" }] }, { signal: controller.signal }).catch(() => undefined);
    await expect.poll(() => harness!.upstream.chatRequests.length, { timeout: 10_000 }).toBe(1);
    await expect(sdk.chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "me too" }] })).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    controller.abort();
    await hanging;
    await expect.poll(async () => (await harness!.gateway.metrics.inFlight.get()).values[0]?.value, { timeout: 10_000 }).toBe(0);
    const big = await sdk.chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "x".repeat(5000) }] }).catch((e: unknown) => e);
    expect((big as { status?: number }).status).toBe(413);
  });
});
