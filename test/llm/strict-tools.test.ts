import { describe, expect, it } from "vitest";
import { createChatModel } from "../../src/llm/create-model.js";
import { LlmError } from "../../src/llm/errors.js";
import { OpenAICompatibleModel } from "../../src/llm/openai-compatible.js";
import { InProcessStrictMemory, withStrictTools } from "../../src/llm/strict-tools.js";
import type { ChatRequest, ToolDefinition } from "../../src/llm/types.js";
import { useStrictVllmServers } from "../support/strict-vllm-servers.js";
import type { VllmServer } from "../support/vllm-server.js";
import { collect, failure } from "./collect.js";

const add: ToolDefinition = {
  name: "add",
  description: "Add two numbers (a + b).",
  parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
};
const ask: ChatRequest = { messages: [{ role: "user", content: "What is 2 + 3?" }], tools: [add] };
const call = { toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] };

// TEST INFRASTRUCTURE: scripted vLLM servers, one with strict mode and one from before it (0.9).
const servers = useStrictVllmServers();

const sent = (server: VllmServer, from: number) => server.chatRequests.slice(from).map((r) => (r.body.tools as Array<{ function: { strict?: boolean } }>).map((t) => t.function.strict));

describe("strict tool calls against vLLM", () => {
  it("sends every tool with strict: true to vLLM and to an OpenAI-compatible server", async () => {
    for (const provider of ["vllm", "openai-compatible"] as const) {
      const from = servers.modern.chatRequests.length;
      servers.modern.push(call);
      const model = await createChatModel({ provider, baseURL: servers.modern.url, model: "Qwen/Qwen3-8B" }, {});
      const answer = await collect(model.stream(ask));
      expect(answer.calls[0]).toMatchObject({ name: "add", arguments: '{"a":2,"b":3}' });
      expect(sent(servers.modern, from)).toEqual([[true]]);
      expect(model.strictTools).toBe(true);
    }
  });

  it("sends no strict to Ollama or OpenAI, whose strict means something else or nothing", async () => {
    for (const provider of ["ollama", "openai"] as const) {
      const from = servers.modern.chatRequests.length;
      servers.modern.push(call);
      const model = await createChatModel({ provider, baseURL: servers.modern.url, model: "Qwen/Qwen3-8B", apiKey: "k" }, {});
      await collect(model.stream(ask));
      expect(sent(servers.modern, from)).toEqual([[undefined]]);
    }
  });

  it("leaves strict out when the request asks for none, and sends it when one asks on a model without the default", async () => {
    const from = servers.modern.chatRequests.length;
    servers.modern.push(call, call);
    const on = new OpenAICompatibleModel({ baseURL: servers.modern.url, model: "m", strictTools: true, strictMemory: new InProcessStrictMemory() });
    await collect(withStrictTools(on, false).stream(ask));
    const off = new OpenAICompatibleModel({ baseURL: servers.modern.url, model: "m", strictMemory: new InProcessStrictMemory() });
    await collect(withStrictTools(off, true).stream(ask));
    expect(sent(servers.modern, from)).toEqual([[undefined], [true]]);
  });

  it("asks a server that refuses strict once more without it, and remembers that for the server and model", async () => {
    const memory = new InProcessStrictMemory();
    const from = servers.old.chatRequests.length;
    servers.old.push(call, call, call);
    const model = new OpenAICompatibleModel({ baseURL: servers.old.url, model: "Qwen/Qwen3-8B", strictTools: true, strictMemory: memory });
    const first = await collect(model.stream(ask));
    const second = await collect(model.stream(ask));
    // Another model object for the same server and model (the next run, a /model switch back) knows it too.
    const again = new OpenAICompatibleModel({ baseURL: servers.old.url, model: "Qwen/Qwen3-8B", strictTools: true, strictMemory: memory });
    const third = await collect(again.stream(ask));
    for (const answer of [first, second, third]) expect(answer.calls.map((c) => c.name)).toEqual(["add"]);
    // One refusal, then never strict again: 4 requests for 3 answers.
    expect(sent(servers.old, from)).toEqual([[true], [undefined], [undefined], [undefined]]);
    expect(model.strictTools).toBe("refused");
    expect(memory.refuses(servers.old.url, "Qwen/Qwen3-8B")).toBe(true);
    expect(memory.refuses(servers.old.url, "another-model")).toBe(false);
  });

  it("does not take another 400 for a refusal of strict: it is not sent again and not remembered", async () => {
    const memory = new InProcessStrictMemory();
    const from = servers.modern.chatRequests.length;
    servers.modern.push({ kind: "error", status: 400, message: "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens." });
    const model = new OpenAICompatibleModel({ baseURL: servers.modern.url, model: "m", strictTools: true, strictMemory: memory, retry: { maxRetries: 0 } });
    const error = await failure(model.stream(ask));
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).code).toBe("context-length");
    expect(sent(servers.modern, from)).toEqual([[true]]);
    expect(model.strictTools).toBe(true);
  });

  it("keeps the server's words when the request without strict fails too", async () => {
    const memory = new InProcessStrictMemory();
    const from = servers.old.chatRequests.length;
    servers.old.push({ kind: "error", status: 503, message: "engine is sleeping" });
    const model = new OpenAICompatibleModel({ baseURL: servers.old.url, model: "m", strictTools: true, strictMemory: memory, retry: { maxRetries: 0 } });
    const error = (await failure(model.stream(ask))) as LlmError;
    expect(error.message).toContain("engine is sleeping");
    expect(sent(servers.old, from)).toEqual([[true], [undefined]]);
  });
});
