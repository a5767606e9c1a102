import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { ToolCallingMiddlewares } from "../../src/agent/tool-mode.js";
import { loadTranscript, saveTranscript } from "../../src/agent/transcript.js";
import { AnthropicModel } from "../../src/llm/anthropic.js";
import type { LlmError } from "../../src/llm/errors.js";
import type { Message } from "../../src/llm/types.js";
import { signatureOf, startAnthropicServer, type AnthropicScriptReply, type AnthropicServer } from "../support/anthropic-server.js";
import { FakeHost, allowAll, textResult } from "./fakes.js";

/**
 * The agent loop against the scripted Anthropic server, which refuses, as the real API does, a
 * follow-up whose thinking or redacted_thinking blocks were dropped, altered or moved.
 */

const identity: ToolCallingMiddlewares = { prompt: (m) => m, textFallback: (m) => m };
const addSchema = { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] };
const REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfRXqOSA0kH2xaWZMGw8l1Hp6PbRt4Gc7G3";

let server: AnthropicServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function agentWith(replies: AnthropicScriptReply[], thinking: { enabled: boolean; budgetTokens?: number; interleaved?: boolean }) {
  server = await startAnthropicServer({ replies });
  const model = new AnthropicModel({ baseURL: server.url, apiKey: "test-key", model: "claude-haiku-4-5", retry: { baseDelayMs: 1 } });
  const host = new FakeHost({ add: { description: "Add two numbers", schema: addSchema, run: (args) => textResult(String(Number(args.a) + Number(args.b))) } });
  return new Agent({ approval: allowAll, model, tools: host, toolCalling: identity, maxTokens: 4096, generation: { thinking } });
}

const INTERLEAVED: AnthropicScriptReply = {
  blocks: [
    { thinking: "First add 2 and 3." },
    { redacted: REDACTED },
    { toolUse: { name: "add", input: { a: 2, b: 3 }, id: "toolu_first" } },
    { thinking: "Then 1 and 1." },
    { text: "Adding twice." },
    { toolUse: { name: "add", input: { a: 1, b: 1 }, id: "toolu_second" } },
  ],
};

describe("thinking in the agent loop with Anthropic", () => {
  it("sends interleaved and redacted thinking back unchanged and in place, with the interleaved-thinking beta", async () => {
    const agent = await agentWith([INTERLEAVED, { thinking: "Both done.", text: "5 and 2." }], { enabled: true, budgetTokens: 2048 });
    const turn = await agent.send("Add 2+3 and 1+1.");
    expect(turn.status).toBe("completed");
    expect(turn.text).toBe("5 and 2.");
    expect(server?.requests).toHaveLength(2);
    for (const request of server?.requests ?? []) expect(request.headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14");
    const assistant = server?.requests[1]?.body.messages[1];
    expect(assistant.role).toBe("assistant");
    expect(assistant.content).toEqual([
      { type: "thinking", thinking: "First add 2 and 3.", signature: signatureOf("First add 2 and 3.") },
      { type: "redacted_thinking", data: REDACTED },
      { type: "tool_use", id: "toolu_first", name: "add", input: { a: 2, b: 3 } },
      { type: "thinking", thinking: "Then 1 and 1.", signature: signatureOf("Then 1 and 1.") },
      { type: "text", text: "Adding twice." },
      { type: "tool_use", id: "toolu_second", name: "add", input: { a: 1, b: 1 } },
    ]);
    expect(server?.requests[1]?.body.messages[2].content.map((block: { content: string }) => block.content)).toEqual(["5", "2"]);
  });

  it("keeps the reply's blocks in a saved transcript, so a loaded conversation goes on", async () => {
    const agent = await agentWith([INTERLEAVED, { text: "5 and 2." }], { enabled: true, budgetTokens: 2048 });
    await agent.send("Add 2+3 and 1+1.");
    const dir = await mkdtemp(join(tmpdir(), "toolbridge-thinking-"));
    try {
      const file = join(dir, "t.jsonl");
      await saveTranscript(file, agent.messages);
      const loaded = await loadTranscript(file);
      expect(loaded.messages).toEqual(agent.messages);
      const assistant = loaded.messages[1] as Extract<Message, { role: "assistant" }>;
      expect(assistant.blocks?.map((block) => block.type)).toEqual(["reasoning", "redacted-reasoning", "tool-call", "reasoning", "text", "tool-call"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("sends no beta when interleaving is turned off, or for adaptive thinking, which interleaves by itself", async () => {
    const plain = { thinking: "Just add.", toolUses: [{ name: "add", input: { a: 2, b: 3 } }] };
    const off = await agentWith([plain, { text: "5." }], { enabled: true, budgetTokens: 2048, interleaved: false });
    expect((await off.send("2+3?")).text).toBe("5.");
    expect(server?.requests.map((request) => request.headers["anthropic-beta"])).toEqual([undefined, undefined]);
    await server?.close();
    const adaptive = await agentWith([INTERLEAVED, { text: "5 and 2." }], { enabled: true });
    expect((await adaptive.send("Add 2+3 and 1+1.")).text).toBe("5 and 2.");
    expect(server?.requests.map((request) => [request.body.thinking, request.headers["anthropic-beta"]])).toEqual([
      [{ type: "adaptive" }, undefined],
      [{ type: "adaptive" }, undefined],
    ]);
  });

  it("the scripted server refuses a follow-up whose thinking was altered, moved or dropped, as the real API does", async () => {
    // The reply as the agent keeps it (the script has no second reply), then three ways of spoiling it.
    const agent = await agentWith([INTERLEAVED], { enabled: true, budgetTokens: 1024 });
    await agent.send("Add.");
    const model = new AnthropicModel({ baseURL: server?.url ?? "", apiKey: "test-key", model: "claude-haiku-4-5", retry: { baseDelayMs: 1 } });
    const tools = [{ name: "add", parameters: addSchema }];
    const ask = (messages: Message[]) => ({ messages, tools, thinking: { enabled: true, budgetTokens: 1024 }, maxTokens: 4096 });
    const kept = agent.messages.slice(0, 2);
    const reply = kept[1] as Extract<Message, { role: "assistant" }>;
    const results: Message[] = [
      { role: "tool", toolCallId: "toolu_first", name: "add", content: "5" },
      { role: "tool", toolCallId: "toolu_second", name: "add", content: "2" },
    ];
    const blocks = reply.blocks ?? [];
    const spoiled: Array<[string, typeof blocks]> = [
      ["Invalid `signature`", blocks.map((block) => (block.type === "reasoning" ? { ...block, text: `${block.text} (edited)` } : block))],
      ["cannot be modified", [blocks[0], blocks[2], blocks[1], ...blocks.slice(3)] as typeof blocks],
      ["cannot be modified", blocks.filter((block) => block.type !== "redacted-reasoning")],
    ];
    for (const [message, changed] of spoiled) {
      const failed = await (async () => {
        for await (const event of model.stream(ask([kept[0] as Message, { ...reply, blocks: changed }, ...results]))) void event;
      })().catch((error: unknown) => error as LlmError);
      expect(failed).toMatchObject({ message: expect.stringContaining(message) });
    }
  });
});
