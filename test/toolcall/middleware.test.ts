import { describe, expect, it } from "vitest";
import type { ChatModel, ChatRequest, StreamEvent, ToolDefinition } from "../../src/llm/types.js";
import { withPromptToolCalling, withTextToolCallFallback } from "../../src/toolcall/middleware.js";
import { loadCorpus } from "./fixture-corpus.js";

const getTime: ToolDefinition = {
  name: "get_time",
  description: "Current time",
  parameters: { type: "object", properties: { timezone: { type: "string" } } },
};

/** A model that replays a scripted stream, cutting its text into small deltas, and records requests. */
function scriptedModel(script: StreamEvent[], deltaSize = 3): ChatModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    provider: "test",
    modelId: "scripted",
    requests,
    async *stream(request: ChatRequest): AsyncIterable<StreamEvent> {
      requests.push(request);
      for (const event of script) {
        if (event.type !== "text-delta") yield event;
        else for (let i = 0; i < event.text.length; i += deltaSize) yield { type: "text-delta", text: event.text.slice(i, i + deltaSize) };
      }
    },
  };
}

async function drain(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const e of stream) events.push(e);
  return events;
}

const text = (events: StreamEvent[], type: "text-delta" | "reasoning-delta"): string =>
  events.map((e) => (e.type === type ? e.text : "")).join("");

describe("withPromptToolCalling", () => {
  it("learns that a model's replies start inside reasoning from a reply that closes a block it never opened", async () => {
    const model = scriptedModel([
      { type: "text-delta", text: 'The user asks the time.\n</think>\n<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>' },
      { type: "finish", reason: "stop" },
    ]);
    const wrapped = withPromptToolCalling(model);
    const request = { messages: [{ role: "user" as const, content: "time?" }], tools: [getTime] };
    // The first reply cannot be told apart while it streams: its thinking arrives as text.
    const first = await drain(wrapped.stream(request));
    expect(text(first, "text-delta")).toContain("The user asks the time.");
    const second = await drain(wrapped.stream(request));
    expect(text(second, "reasoning-delta")).toBe("The user asks the time.\n");
    expect(text(second, "text-delta")).not.toContain("The user asks");
    expect(second.filter((e) => e.type === "tool-call")).toHaveLength(1);
  });

  it("keeps reading replies as plain text when the model opens its own reasoning blocks", async () => {
    const model = scriptedModel([{ type: "text-delta", text: "<think>short</think>Done." }, { type: "finish", reason: "stop" }]);
    const wrapped = withPromptToolCalling(model);
    const request = { messages: [{ role: "user" as const, content: "hi" }], tools: [getTime] };
    await drain(wrapped.stream(request));
    const second = await drain(wrapped.stream(request));
    expect(text(second, "text-delta")).toBe("Done.");
    expect(text(second, "reasoning-delta")).toBe("short");
  });

  it("sends the request without tools and with the tool prompt in the system message", async () => {
    const model = scriptedModel([{ type: "text-delta", text: "Hi" }, { type: "finish", reason: "stop" }]);
    await drain(
      withPromptToolCalling(model).stream({
        messages: [{ role: "user", content: "time?" }],
        tools: [getTime],
        toolChoice: "auto",
      }),
    );
    const sent = model.requests[0];
    expect(sent?.tools).toBeUndefined();
    expect(sent?.toolChoice).toBeUndefined();
    expect(sent?.messages[0]?.role).toBe("system");
    expect(sent?.messages[0]?.content).toContain("get_time: Current time");
  });

  it("turns streamed text into text, reasoning and tool-call events and finishes with tool-calls", async () => {
    const model = scriptedModel([
      { type: "text-delta", text: '<think>UTC is asked.</think>Let me check.\n<tool_call>\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n</tool_call>' },
      { type: "finish", reason: "stop" },
      { type: "usage", usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } },
    ]);
    const events = await drain(withPromptToolCalling(model).stream({ messages: [{ role: "user", content: "time?" }], tools: [getTime] }));
    expect(text(events, "reasoning-delta")).toBe("UTC is asked.");
    expect(text(events, "text-delta")).toBe("Let me check.\n");
    const calls = events.filter((e) => e.type === "tool-call");
    expect(calls).toHaveLength(1);
    const call = calls[0]?.type === "tool-call" ? calls[0].call : undefined;
    expect(call?.name).toBe("get_time");
    expect(JSON.parse(call?.arguments ?? "")).toEqual({ timezone: "UTC" });
    expect(call?.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(events[events.length - 1]).toEqual({ type: "finish", reason: "tool-calls" });
    expect(events.some((e) => e.type === "usage")).toBe(true);
  });

  it("keeps the model's finish reason when the reply holds no call", async () => {
    const model = scriptedModel([{ type: "text-delta", text: "It is {probably} noon." }, { type: "finish", reason: "length" }]);
    const events = await drain(withPromptToolCalling(model).stream({ messages: [{ role: "user", content: "time?" }], tools: [getTime] }));
    expect(text(events, "text-delta")).toBe("It is {probably} noon.");
    expect(events[events.length - 1]).toEqual({ type: "finish", reason: "length" });
  });

  it("passes a request without tools through unparsed", async () => {
    const model = scriptedModel([{ type: "text-delta", text: '{"name": "get_time", "arguments": {}}' }, { type: "finish", reason: "stop" }]);
    const events = await drain(withPromptToolCalling(model).stream({ messages: [{ role: "user", content: "hi" }] }));
    expect(events.some((e) => e.type === "tool-call")).toBe(false);
  });
});

describe("withTextToolCallFallback", () => {
  it("yields calls a model wrote as text when it made no native call", async () => {
    const model = scriptedModel([
      { type: "text-delta", text: 'Sure. {"name": "get_time", "arguments": {"timezone": "UTC"}}' },
      { type: "finish", reason: "stop" },
    ]);
    const events = await drain(withTextToolCallFallback(model).stream({ messages: [{ role: "user", content: "time?" }], tools: [getTime] }));
    expect(model.requests[0]?.tools).toEqual([getTime]);
    expect(text(events, "text-delta")).toBe("Sure. ");
    expect(events.filter((e) => e.type === "tool-call")).toHaveLength(1);
    expect(events[events.length - 1]).toEqual({ type: "finish", reason: "tool-calls" });
  });

  it("keeps only the native calls when the model made both", async () => {
    const native = { id: "chatcmpl-tool-1", name: "get_time", arguments: '{"timezone":"CET"}' };
    const model = scriptedModel([
      { type: "text-delta", text: '<tool_call>{"name": "get_time", "arguments": {"timezone": "UTC"}}</tool_call>' },
      { type: "tool-call", call: native },
      { type: "finish", reason: "tool-calls" },
    ]);
    const events = await drain(withTextToolCallFallback(model).stream({ messages: [{ role: "user", content: "time?" }], tools: [getTime] }));
    expect(events.filter((e) => e.type === "tool-call")).toEqual([{ type: "tool-call", call: native }]);
    expect(events[events.length - 1]).toEqual({ type: "finish", reason: "tool-calls" });
  });
});

describe("native mode rescue of every call format", () => {
  const families = ["llama-pythonic.json", "deepseek.json", "kimi.json", "glm.json", "harmony.json", "granite-firefunction-command.json", "client-formats.json", "mistral.json"];
  const cases = loadCorpus().filter((c) => families.includes(c.file) && c.calls.length > 0 && c.tools !== undefined);

  it.each(cases.map((c) => [`${c.file}: ${c.name}`, c] as const))("rescues %s written as text", async (_label, c) => {
    const model = scriptedModel([{ type: "text-delta", text: c.text }, { type: "finish", reason: "stop" }]);
    const tools: ToolDefinition[] = (c.tools ?? []).map((name) => ({ name, parameters: { type: "object" } }));
    const events = await drain(withTextToolCallFallback(model, { startInReasoning: c.startInReasoning }).stream({ messages: [{ role: "user", content: "go" }], tools }));
    const calls = events.flatMap((e) => (e.type === "tool-call" ? [{ name: e.call.name, arguments: JSON.parse(e.call.arguments) as unknown }] : []));
    expect(calls).toEqual(c.calls);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "tool-calls" });
  });
});
