import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { ApprovalPolicy, type ApprovalAnswer } from "../../src/agent/approval.js";
import type { AgentEvent } from "../../src/agent/events.js";
import type { ToolCallingMiddlewares } from "../../src/agent/tool-mode.js";
import { loadTranscript, saveTranscript } from "../../src/agent/transcript.js";
import { toolAllowList } from "../../src/config/llm-config.js";
import { LlmError } from "../../src/llm/errors.js";
import type { ChatModel, Message } from "../../src/llm/types.js";
import { FakeHost, FakeModel, allowAll, calls, dateSchema, sleep, text, textResult } from "./fakes.js";

const identity: ToolCallingMiddlewares = { prompt: (m) => m, textFallback: (m) => m };

function dateHost(): FakeHost {
  return new FakeHost({
    "get-date": {
      description: "Get the current date and time",
      schema: dateSchema,
      run: (args) => {
        if (args.timezone === "Mars/Olympus") return textResult("Invalid time zone specified: Mars/Olympus", true);
        return textResult(`2026-01-07 (${String(args.timezone ?? "local")})`);
      },
    },
  });
}

function toolMessages(messages: readonly Message[]): Array<Extract<Message, { role: "tool" }>> {
  return messages.filter((m): m is Extract<Message, { role: "tool" }> => m.role === "tool");
}

describe("Agent", () => {
  it("answers in text when the model calls no tool, offering the host's tools as definitions", async () => {
    const model = new FakeModel([text("Hello!")]);
    const agent = new Agent({ approval: allowAll, model, tools: dateHost(), systemPrompt: "Be brief.", toolCalling: identity });
    const turn = await agent.send("hi");
    expect(turn.text).toBe("Hello!");
    expect(turn.status).toBe("completed");
    expect(turn.stopReason).toBe("answer");
    expect(turn.iterations).toBe(1);
    expect(model.requests[0]?.tools).toEqual([{ name: "get-date", description: "Get the current date and time", parameters: dateSchema }]);
    expect(model.requests[0]?.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
    ]);
    expect(agent.messages).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "Hello!" },
    ]);
  });

  it("runs the tool the model asks for and sends the result back tied to its call id", async () => {
    const model = new FakeModel([calls(["call_1", "get-date", '{"format": "date-only"}']), text("Today is 7 January 2026.")]);
    const host = dateHost();
    const agent = new Agent({ approval: allowAll, model, tools: host, toolCalling: identity });
    const turn = await agent.send("What's the date?");
    expect(host.called.map((c) => [c.name, c.args])).toEqual([["get-date", { format: "date-only" }]]);
    expect(turn.text).toBe("Today is 7 January 2026.");
    expect(turn.iterations).toBe(2);
    expect(turn.usage).toEqual({ inputTokens: 30, outputTokens: 13, totalTokens: 43 });
    const second = model.requests[1]?.messages ?? [];
    expect(second[1]).toEqual({ role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "get-date", arguments: '{"format": "date-only"}' }] });
    expect(second[2]).toEqual({ role: "tool", toolCallId: "call_1", name: "get-date", content: "2026-01-07 (local)" });
    expect(turn.toolCalls[0]).toMatchObject({ id: "call_1", outcome: "ok", isError: false, arguments: { format: "date-only" } });
  });

  it("runs two calls from one reply concurrently and returns their results in the model's order", async () => {
    let running = 0;
    let peak = 0;
    const host = new FakeHost({
      slow: {
        run: async () => {
          running++;
          peak = Math.max(peak, running);
          await sleep(40);
          running--;
          return textResult("slow done");
        },
      },
      fast: {
        run: async () => {
          running++;
          peak = Math.max(peak, running);
          await sleep(1);
          running--;
          return textResult("fast done");
        },
      },
    });
    const finished: string[] = [];
    const model = new FakeModel([calls(["a", "slow", "{}"], ["b", "fast", "{}"]), text("both done")]);
    const agent = new Agent({ approval: allowAll, model, tools: host, toolCalling: identity });
    await agent.send("go", { onEvent: (e) => e.type === "tool-call-finished" && finished.push(e.id) });
    expect(peak).toBe(2);
    expect(finished).toEqual(["b", "a"]);
    expect(toolMessages(model.requests[1]?.messages ?? []).map((m) => [m.toolCallId, m.content])).toEqual([
      ["a", "slow done"],
      ["b", "fast done"],
    ]);
  });

  it("at maxIterations makes one last request without tools and reports the limit", async () => {
    const model = new FakeModel([
      calls(["c1", "get-date", '{"timezone": "Asia/Taipei"}']),
      calls(["c2", "get-date", '{"timezone": "Europe/Paris"}']),
      text("It is 7 January in both places."),
    ]);
    const agent = new Agent({ approval: allowAll, model, tools: dateHost(), maxIterations: 2, toolCalling: identity });
    const turn = await agent.send("dates?");
    expect(model.requests).toHaveLength(3);
    expect(model.requests[2]?.tools).toBeUndefined();
    const last = model.requests[2]?.messages.at(-1);
    expect(last?.role).toBe("user");
    expect(String(last?.content)).toMatch(/limit of tool calls/);
    expect(turn).toMatchObject({ text: "It is 7 January in both places.", limitReached: true, stopReason: "max-iterations", iterations: 3, status: "completed" });
    // The instruction was for that request only; the conversation ends with the answer.
    expect(agent.messages.at(-1)).toEqual({ role: "assistant", content: "It is 7 January in both places." });
    expect(agent.messages.filter((m) => m.role === "user")).toHaveLength(1);
  });

  it("at maxToolCalls runs no call past it and asks for the answer without tools, reporting the limit", async () => {
    const model = new FakeModel([
      calls(["c1", "get-date", '{"timezone": "Asia/Taipei"}'], ["c2", "get-date", '{"timezone": "Europe/Paris"}']),
      text("It is 7 January in Taipei."),
    ]);
    const agent = new Agent({ approval: allowAll, model, tools: dateHost(), maxToolCalls: 1, toolCalling: identity });
    const turn = await agent.send("dates?");
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]?.tools).toBeUndefined();
    expect(turn.toolCalls.map((call) => call.outcome)).toEqual(["ok", "over-limit"]);
    expect(toolMessages(model.requests[1]?.messages ?? []).map((m) => m.content)[1]).toBe("Not run: this question may make at most 1 tool calls, and they are used up. Use the results you already have.");
    expect(turn).toMatchObject({ limitReached: true, stopReason: "max-tool-calls", status: "completed" });
  });

  it("stops a runaway loop when the same call comes three times in a row, without running the third", async () => {
    const model = new FakeModel([
      calls(["c1", "get-date", '{"format":"iso","timezone":"UTC"}']),
      calls(["c2", "get-date", '{"timezone": "UTC", "format": "iso"}']),
      calls(["c3", "get-date", '{"format":"iso","timezone":"UTC"}']),
      text("It is 2026-01-07."),
    ]);
    const host = dateHost();
    const agent = new Agent({ approval: allowAll, model, tools: host, maxIterations: 10, toolCalling: identity });
    const turn = await agent.send("date?");
    expect(host.called).toHaveLength(2);
    expect(turn).toMatchObject({ stopReason: "repeated-call", limitReached: true, text: "It is 2026-01-07.", iterations: 4 });
    expect(turn.toolCalls[2]).toMatchObject({ id: "c3", outcome: "repeated", isError: true });
    expect(model.requests[3]?.tools).toBeUndefined();
    expect(String(model.requests[3]?.messages.at(-1)?.content)).toMatch(/same tool with the same arguments 3 times/);
  });

  it("answers an unknown tool name with the list of valid names and goes on", async () => {
    const model = new FakeModel([calls(["c1", "get_time", "{}"]), text("Sorry.")]);
    const host = dateHost();
    const agent = new Agent({ approval: allowAll, model, tools: host, toolCalling: identity });
    const turn = await agent.send("time?");
    expect(host.called).toHaveLength(0);
    const result = toolMessages(model.requests[1]?.messages ?? [])[0];
    expect(result).toMatchObject({ toolCallId: "c1", isError: true });
    expect(result?.content).toBe('Unknown tool "get_time". The available tools are: get-date. Call one of these by its exact name.');
    expect(turn.toolCalls[0]?.outcome).toBe("unknown-tool");
    expect(turn.text).toBe("Sorry.");
  });

  it("answers arguments that are not JSON with where the JSON broke", async () => {
    const model = new FakeModel([calls(["c1", "get-date", '{"timezone": "Asia/Taipei",']), text("ok")]);
    const agent = new Agent({ approval: allowAll, model, tools: dateHost(), toolCalling: identity });
    const turn = await agent.send("date?");
    const content = String(toolMessages(model.requests[1]?.messages ?? [])[0]?.content);
    expect(content).toMatch(/^The arguments are not valid JSON: .* at character 27: .*Asia\/Taipei",⟨here⟩/);
    expect(turn.toolCalls[0]?.outcome).toBe("invalid-json");
  });

  it("answers arguments that fail the schema with one line per problem, naming each argument", async () => {
    const host = new FakeHost({
      add: {
        schema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" }, mode: { enum: ["int", "float"] } }, required: ["a", "b"], additionalProperties: false },
        run: () => textResult("never"),
      },
    });
    const model = new FakeModel([calls(["c1", "add", '{"a": "two", "mode": "big", "c": 1}']), text("ok")]);
    const agent = new Agent({ approval: allowAll, model, tools: host, toolCalling: identity });
    const turn = await agent.send("add");
    expect(host.called).toHaveLength(0);
    const content = String(toolMessages(model.requests[1]?.messages ?? [])[0]?.content);
    expect(content.split("\n")).toEqual([
      'The arguments for "add" do not match its input schema:',
      '- missing required argument "b"',
      '- unknown argument "c"',
      '- argument "a" must be number',
      '- argument "mode" must be one of "int", "float"',
      'Call "add" again with corrected arguments.',
    ]);
    expect(turn.toolCalls[0]).toMatchObject({ outcome: "invalid-arguments", arguments: { a: "two", mode: "big", c: 1 } });
  });

  it("passes a tool's own error back to the model marked as an error, and the loop goes on", async () => {
    const model = new FakeModel([calls(["c1", "get-date", '{"timezone": "Mars/Olympus"}']), text("Mars/Olympus is not a valid time zone.")]);
    const events: AgentEvent[] = [];
    const agent = new Agent({ approval: allowAll, model, tools: dateHost(), toolCalling: identity });
    const turn = await agent.send("time on Mars?", { onEvent: (e) => events.push(e) });
    const result = toolMessages(model.requests[1]?.messages ?? [])[0];
    expect(result).toMatchObject({ isError: true, content: "Error: the tool reported a failure.\nInvalid time zone specified: Mars/Olympus" });
    expect(turn.toolCalls[0]?.outcome).toBe("tool-error");
    const finished = events.find((e) => e.type === "tool-call-finished");
    expect(finished).toMatchObject({ isError: true, summary: "Invalid time zone specified: Mars/Olympus" });
    expect(turn.text).toBe("Mars/Olympus is not a valid time zone.");
  });

  it("summarises a failed result that carries an image by the tool's words, without the model's failure mark", async () => {
    const host = new FakeHost({
      chart: { run: () => ({ content: [{ type: "text", text: "axis missing" }, { type: "image", data: "AAAA", mimeType: "image/png" }], isError: true }) },
    });
    const model = new FakeModel([calls(["c1", "chart", "{}"]), text("No chart.")]);
    const events: AgentEvent[] = [];
    await new Agent({ approval: allowAll, model, tools: host, toolCalling: identity }).send("plot", { onEvent: (e) => events.push(e) });
    const finished = events.find((e) => e.type === "tool-call-finished");
    expect(finished).toMatchObject({ isError: true, summary: "axis missing [image image/png]" });
    expect(toolMessages(model.requests[1]?.messages ?? [])[0]?.content).toEqual([
      { type: "text", text: "Error: the tool reported a failure.\naxis missing" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ]);
  });

  it("passes a failed call (the host throws) back to the model as an error", async () => {
    const host = new FakeHost({ flaky: { run: () => Promise.reject(new Error("server crashed")) } });
    const model = new FakeModel([calls(["c1", "flaky", "{}"]), text("It failed.")]);
    const turn = await new Agent({ approval: allowAll, model, tools: host, toolCalling: identity }).send("go");
    expect(toolMessages(model.requests[1]?.messages ?? [])[0]?.content).toBe('Error: calling "flaky" failed: server crashed');
    expect(turn.toolCalls[0]?.outcome).toBe("call-failed");
  });

  it("caps a long result before the model sees it and keeps it whole in the turn and the conversation", async () => {
    const long = "x".repeat(5000);
    const host = new FakeHost({ dump: { run: () => textResult(long) } });
    const model = new FakeModel([calls(["c1", "dump", "{}"]), text("big")]);
    const agent = new Agent({ approval: allowAll, model, tools: host, maxToolResultChars: 1000, toolCalling: identity });
    const turn = await agent.send("dump");
    const seen = String(toolMessages(model.requests[1]?.messages ?? [])[0]?.content);
    expect(seen).toBe(`${"x".repeat(1000)}\n[… result cut: showing the first 1000 of 5000 characters]`);
    expect(turn.toolCalls[0]?.content).toBe(long);
    expect(toolMessages(agent.messages)[0]?.content).toBe(long);
  });

  it("cancels mid-stream, keeps what streamed, and the next turn continues the conversation", async () => {
    const controller = new AbortController();
    const model = new FakeModel([
      async function* () {
        yield { type: "text-delta", text: "Once upon" };
        await sleep(1000, controller.signal);
        yield { type: "text-delta", text: " a time" };
      },
      text("Fine."),
    ]);
    const agent = new Agent({ approval: allowAll, model, tools: dateHost(), toolCalling: identity });
    const turn = await agent.send("tell a story", {
      signal: controller.signal,
      onEvent: (e) => e.type === "text-delta" && controller.abort(),
    });
    expect(turn).toMatchObject({ status: "aborted", stopReason: "aborted", text: "Once upon" });
    expect(agent.messages).toEqual([
      { role: "user", content: "tell a story" },
      { role: "assistant", content: "Once upon" },
    ]);
    const next = await agent.send("never mind");
    expect(next.text).toBe("Fine.");
    expect(model.requests[1]?.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  });

  it("does not keep an answer cut off for its size, so later requests do not carry it", async () => {
    const model = new FakeModel([
      async function* () {
        yield { type: "text-delta", text: "x".repeat(10_000) };
        throw new LlmError("too-large", "The model server at http://m/v1 sent an answer of more than 10000 characters (llm.maxAnswerChars); the rest was not read.");
      },
      text("Fine."),
    ]);
    const agent = new Agent({ model, tools: dateHost(), toolCalling: identity });
    const turn = await agent.send("talk");
    expect(turn).toMatchObject({ status: "failed", error: { code: "too-large" } });
    expect(agent.messages).toEqual([{ role: "user", content: "talk" }]);
    await agent.send("again");
    expect(model.requests[1]?.messages.map((m) => m.role)).toEqual(["user", "user"]);
  });

  it("cancels mid-tool-call: the signal reaches the host and every call still gets a result", async () => {
    const controller = new AbortController();
    let seenSignal: AbortSignal | undefined;
    const host = new FakeHost({
      // A server that ignores cancellation: the turn must not wait for it.
      hang: {
        run: (_args, options) => {
          seenSignal = options?.signal;
          return new Promise(() => undefined);
        },
      },
      quick: { run: () => textResult("quick") },
    });
    const model = new FakeModel([calls(["c1", "quick", "{}"], ["c2", "hang", "{}"])]);
    const agent = new Agent({ approval: allowAll, model, tools: host, toolCalling: identity });
    const turn = await agent.send("go", {
      signal: controller.signal,
      onEvent: (e) => e.type === "tool-call-started" && e.name === "hang" && setTimeout(() => controller.abort(), 5),
    });
    expect(seenSignal).toBe(controller.signal);
    expect(turn.status).toBe("aborted");
    expect(turn.toolCalls.map((c) => c.outcome)).toEqual(["ok", "cancelled"]);
    const assistant = agent.messages.find((m) => m.role === "assistant");
    const answered = toolMessages(agent.messages).map((m) => m.toolCallId);
    expect(assistant?.role === "assistant" ? assistant.toolCalls?.map((c) => c.id) : []).toEqual(answered);
  });

  it("cancels while a reply's tool call runs and keeps that reply as one assistant message, its call answered", async () => {
    const controller = new AbortController();
    const host = new FakeHost({ hang: { run: () => new Promise(() => undefined) } });
    const model = new FakeModel([[{ type: "text-delta", text: "Let me look." }, ...calls(["c1", "hang", "{}"])]]);
    const agent = new Agent({ approval: allowAll, model, tools: host, toolCalling: identity });
    const turn = await agent.send("go", {
      signal: controller.signal,
      onEvent: (e) => e.type === "tool-call-started" && setTimeout(() => controller.abort(), 5),
    });
    expect(turn.status).toBe("aborted");
    expect(turn.text).toBe("");
    const assistants = agent.messages.filter((m) => m.role === "assistant");
    expect(assistants).toEqual([{ role: "assistant", content: "Let me look.", toolCalls: [{ id: "c1", name: "hang", arguments: "{}" }] }]);
    expect(toolMessages(agent.messages).map((m) => [m.toolCallId, m.isError])).toEqual([["c1", true]]);
    expect(agent.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("reports a model failure as a failed turn with an error event, leaving the conversation consistent", async () => {
    const model = new FakeModel([new LlmError("connection", "Cannot reach the model server at http://127.0.0.1:9/v1 (connection refused).")]);
    const events: AgentEvent[] = [];
    const agent = new Agent({ approval: allowAll, model, tools: dateHost(), toolCalling: identity });
    const turn = await agent.send("hi", { onEvent: (e) => events.push(e) });
    expect(turn).toMatchObject({ status: "failed", stopReason: "error", error: { code: "connection" } });
    expect(events.map((e) => e.type)).toEqual(["model-request", "error", "turn-end"]);
    expect(agent.messages).toEqual([{ role: "user", content: "hi" }]);
  });

  it("emits typed events in order: request, the call as written, tool start and finish with a duration, usage, turn end", async () => {
    const model = new FakeModel([
      [{ type: "reasoning-delta", text: "need the date" }, ...calls(["c1", "get-date", "{}"])],
      text("Done."),
    ]);
    const events: AgentEvent[] = [];
    await new Agent({ approval: allowAll, model, tools: dateHost(), toolCalling: identity }).send("date", { onEvent: (e) => events.push(e) });
    expect(events.map((e) => e.type)).toEqual([
      "model-request",
      "reasoning-delta",
      "tool-call-written",
      "usage",
      "tool-call-started",
      "tool-call-finished",
      "model-request",
      "text-delta",
      "usage",
      "turn-end",
    ]);
    const started = events.find((e) => e.type === "tool-call-started");
    expect(started).toEqual({ type: "tool-call-started", id: "c1", name: "get-date", arguments: {} });
    const finished = events.find((e) => e.type === "tool-call-finished");
    expect(finished?.type === "tool-call-finished" && finished.durationMs).toBeGreaterThanOrEqual(0);
    const end = events.at(-1);
    expect(end?.type === "turn-end" && end.turn.reasoning).toBe("need the date");
  });

  it("times a tool call from its approval on: the time the person took to answer is not the tool's", async () => {
    const model = new FakeModel([calls(["c1", "write_file", "{}"]), text("Done.")]);
    const host = new FakeHost({ write_file: { run: () => textResult("written") } });
    const approval = { policy: new ApprovalPolicy(), ask: async (): Promise<ApprovalAnswer> => (await sleep(300), { decision: "allow-once" }) };
    const turn = await new Agent({ approval, model, tools: host, toolCalling: identity }).send("write");
    expect(host.called).toHaveLength(1);
    expect(turn.toolCalls[0]?.durationMs).toBeLessThan(250);
  });

  it("streams the same events as an async iterable", async () => {
    const model = new FakeModel([text("Hi")]);
    const types: string[] = [];
    for await (const event of new Agent({ approval: allowAll, model, tools: dateHost(), toolCalling: identity }).stream("hello")) types.push(event.type);
    expect(types).toEqual(["model-request", "text-delta", "usage", "turn-end"]);
  });

  it("keeps the conversation across turns", async () => {
    const model = new FakeModel([
      calls(["c1", "get-date", '{"format":"time-only"}']),
      text("It is 14:30."),
      calls(["c2", "get-date", '{"format":"time-only","timezone":"Asia/Taipei"}']),
      text("In Taipei it is 22:30."),
    ]);
    const agent = new Agent({ approval: allowAll, model, tools: dateHost(), toolCalling: identity });
    await agent.send("What time is it?");
    await agent.send("And Taipei?");
    expect(model.requests[2]?.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(agent.messages).toHaveLength(8);
  });

  it("offers only the tools the config's allow-list enables", async () => {
    const host = new FakeHost({ a: { run: () => textResult("a") }, b: { run: () => textResult("b") }, c: { run: () => textResult("c") } });
    const model = new FakeModel([text("ok")]);
    const agent = new Agent({ approval: allowAll, model, tools: host, toolFilter: toolAllowList({ tools: { enabled: ["a", "c"] } }), toolCalling: identity });
    await agent.send("hi");
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(["a", "c"]);
  });

  it("saves the conversation as a JSONL transcript and continues from it after loading", async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolbridge-transcript-"));
    try {
      const model = new FakeModel([calls(["c1", "get-date", "{}"]), text("Today.")]);
      const agent = new Agent({ approval: allowAll, model, tools: dateHost(), toolCalling: identity });
      await agent.send("date?");
      const file = join(dir, "chat.jsonl");
      await saveTranscript(file, agent.messages, { model: "fake-model" });
      const loaded = await loadTranscript(file);
      expect(loaded.header).toMatchObject({ format: "toolbridge-transcript", version: 1, model: "fake-model" });
      expect(loaded.messages).toEqual(agent.messages);
      const model2 = new FakeModel([text("Still today.")]);
      const resumed = new Agent({ approval: allowAll, model: model2, tools: dateHost(), messages: loaded.messages, toolCalling: identity });
      await resumed.send("and now?");
      expect(model2.requests[0]?.messages).toEqual([...agent.messages, { role: "user", content: "and now?" }]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("Agent tool modes", () => {
  function recordingMiddlewares(): ToolCallingMiddlewares & { wrapped: string[] } {
    const wrapped: string[] = [];
    return {
      wrapped,
      prompt: (model) => {
        wrapped.push("prompt");
        return { provider: model.provider, modelId: model.modelId, stream: (request) => model.stream({ ...request, messages: [{ role: "system", content: "PROMPT MODE" }, ...request.messages] }) } satisfies ChatModel;
      },
      textFallback: (model) => {
        wrapped.push("text-fallback");
        return model;
      },
    };
  }

  const refused = () => new LlmError("tools-unsupported", "The model server refuses native tool calling.", { status: 400 });

  it("in auto mode switches to prompt mode once when the server refuses tools, and retries the same request", async () => {
    const model = new FakeModel([refused(), text("Answered in prompt mode."), text("Second turn.")]);
    const middlewares = recordingMiddlewares();
    const events: AgentEvent[] = [];
    const agent = new Agent({ approval: allowAll, model, tools: dateHost(), toolMode: "auto", toolCalling: middlewares });
    expect(agent.toolMode).toBe("native");
    const turn = await agent.send("date?", { onEvent: (e) => events.push(e) });
    expect(turn.text).toBe("Answered in prompt mode.");
    expect(turn.status).toBe("completed");
    expect(agent.toolMode).toBe("prompt");
    expect(middlewares.wrapped).toEqual(["text-fallback", "prompt"]);
    expect(model.requests[1]?.messages.slice(1)).toEqual(model.requests[0]?.messages);
    expect(model.requests[1]?.messages[0]).toEqual({ role: "system", content: "PROMPT MODE" });
    await agent.send("again", { onEvent: (e) => events.push(e) });
    expect(events.filter((e) => e.type === "notice")).toEqual([
      { type: "notice", code: "prompt-mode", message: "fake-model does not accept native tool calls here; switched to prompt-based tool calling for this session." },
    ]);
  });

  it("in native mode reports the refusal instead of switching", async () => {
    const model = new FakeModel([refused()]);
    const agent = new Agent({ approval: allowAll, model, tools: dateHost(), toolMode: "native", toolCalling: recordingMiddlewares() });
    const turn = await agent.send("date?");
    expect(turn).toMatchObject({ status: "failed", error: { code: "tools-unsupported" } });
    expect(agent.toolMode).toBe("native");
  });

  it("does not switch when the refusal comes after the reply began streaming", async () => {
    const model = new FakeModel([
      async function* () {
        yield { type: "text-delta", text: "Let me" };
        throw refused();
      },
    ]);
    const agent = new Agent({ approval: allowAll, model, tools: dateHost(), toolCalling: recordingMiddlewares() });
    const turn = await agent.send("date?");
    expect(turn.status).toBe("failed");
    expect(agent.toolMode).toBe("native");
  });

  it("in prompt mode wraps the model from the first request", async () => {
    const model = new FakeModel([text("ok")]);
    const middlewares = recordingMiddlewares();
    const agent = new Agent({ approval: allowAll, model, tools: dateHost(), toolMode: "prompt", toolCalling: middlewares });
    await agent.send("hi");
    expect(middlewares.wrapped).toEqual(["prompt"]);
    expect(model.requests[0]?.messages[0]).toEqual({ role: "system", content: "PROMPT MODE" });
  });
});

describe("Agent with the toolcall module's wrappers", () => {
  const refused = () => new LlmError("tools-unsupported", "The model server refuses native tool calling.", { status: 400 });

  it("in auto mode, after a refusal, describes the tools in the prompt and runs the calls the model writes as text", async () => {
    const model = new FakeModel([
      refused(),
      [
        { type: "text-delta", text: '<tool_call>{"name": "get-date", "argu' },
        { type: "text-delta", text: 'ments": {"timezone": "America/New_York"}}</tool_call>' },
        { type: "finish", reason: "stop" },
      ],
      text("It is 09:30 in New York."),
    ]);
    const host = dateHost();
    const agent = new Agent({ approval: allowAll, model, tools: host, systemPrompt: "Be brief." });
    const turn = await agent.send("What time is it in New York?");
    expect(turn.text).toBe("It is 09:30 in New York.");
    expect(host.called.map((c) => c.args)).toEqual([{ timezone: "America/New_York" }]);
    expect(model.requests[1]?.tools).toBeUndefined();
    const system = String(model.requests[1]?.messages[0]?.content);
    expect(system).toContain("Be brief.");
    expect(system).toContain("get-date");
    expect(system).toContain("<tool_call>");
    // The result goes back as a <tool_response> the model reads, not as a native tool message.
    expect(model.requests[2]?.messages.some((m) => m.role === "tool")).toBe(false);
    expect(JSON.stringify(model.requests[2]?.messages)).toContain("2026-01-07 (America/New_York)");
  });

  it("in native mode also runs a call the model wrote as text (dual mode)", async () => {
    const model = new FakeModel([
      [{ type: "text-delta", text: '<tool_call>\n{"name": "get-date", "arguments": {"format": "date-only"}}\n</tool_call>' }, { type: "finish", reason: "stop" }],
      text("Today is 7 January 2026."),
    ]);
    const host = dateHost();
    const turn = await new Agent({ approval: allowAll, model, tools: host, toolMode: "native" }).send("date?");
    expect(host.called.map((c) => c.args)).toEqual([{ format: "date-only" }]);
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(["get-date"]);
    expect(turn.text).toBe("Today is 7 January 2026.");
  });
});
