import { ProtocolError } from "@modelcontextprotocol/server";
import type { CreateMessageRequestParams, CreateMessageResultWithTools } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalPolicy, type Approval, type SamplingApprovalRequest } from "../../src/agent/approval.js";
import { createSamplingHandler, toMessages, type SamplingOptions } from "../../src/agent/sampling.js";
import { createChatModel } from "../../src/llm/create-model.js";
import { startVllmServer, type VllmReply, type VllmServer } from "../support/vllm-server.js";

/** Sampling through the real OpenAI-compatible adapter, against the scripted vLLM server. */

let server: VllmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function handler(replies: VllmReply[], options: Partial<SamplingOptions> & { toolsEnabled?: boolean } = {}) {
  server = await startVllmServer({ replies, toolsEnabled: options.toolsEnabled ?? true, otherModels: ["big-model"] });
  const url = server.url;
  const approval: Approval = options.approval ?? { policy: new ApprovalPolicy({ mode: "all" }) };
  return createSamplingHandler({
    approval,
    model: (name) => createChatModel({ provider: "vllm", baseURL: url, model: name ?? "Qwen/Qwen3-8B" }, {}),
    ...options,
  });
}

const request = (extra: Partial<CreateMessageRequestParams> = {}): CreateMessageRequestParams => ({
  messages: [{ role: "user", content: { type: "text", text: "What is MCP?" } }],
  maxTokens: 64,
  ...extra,
});
const context = () => ({ server: "srv", signal: new AbortController().signal });

function chatBodies(): any[] {
  return (server?.requests ?? []).filter((r) => r.path === "/v1/chat/completions").map((r) => r.body);
}

describe("sampling through the model", () => {
  it("sends the system prompt, messages, maxTokens and temperature, and returns the text with the model's name", async () => {
    const sample = await handler([{ text: "A protocol." }]);
    const result = await sample(request({ systemPrompt: "Be brief.", temperature: 0.2 }), context());
    expect(result).toMatchObject({ model: "Qwen/Qwen3-8B", role: "assistant", stopReason: "endTurn", content: { type: "text", text: "A protocol." } });
    const body = chatBodies()[0];
    expect(body.messages[0]).toEqual({ role: "system", content: "Be brief." });
    expect(body.messages[1]).toMatchObject({ role: "user", content: "What is MCP?" });
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(64);
    expect(body.temperature).toBe(0.2);
  });

  it("passes images and audio on", async () => {
    const sample = await handler([{ text: "A cat." }]);
    await sample(
      request({
        messages: [
          {
            role: "user",
            content: [
              { type: "image", data: "aGk=", mimeType: "image/png" },
              { type: "audio", data: "aGk=", mimeType: "audio/wav" },
            ],
          },
        ],
      }),
      context(),
    );
    const content = JSON.stringify(chatBodies()[0].messages);
    expect(content).toContain("data:image/png;base64,aGk=");
    expect(content).toContain('"input_audio":{"data":"aGk=","format":"wav"}');
  });

  it("stops at the first stop sequence", async () => {
    const sample = await handler([{ text: "one two STOP three" }]);
    const result = await sample(request({ stopSequences: ["STOP"] }), context());
    expect(result).toMatchObject({ stopReason: "stopSequence", content: { type: "text", text: "one two " } });
  });

  it("lets a model-preference hint pick a known model by name", async () => {
    const sample = await handler([{ text: "ok" }], { knownModels: ["Qwen/Qwen3-8B", "big-model"] });
    const result = await sample(request({ modelPreferences: { hints: [{ name: "big" }] } }), context());
    expect(result.model).toBe("big-model");
    expect(chatBodies()[0].model).toBe("big-model");
  });

  it("uses the server's own sampling model over any hint", async () => {
    const sample = await handler([{ text: "ok" }], { servers: { srv: { sampling: { model: "big-model" } } } });
    expect((await sample(request(), context())).model).toBe("big-model");
  });
});

describe("sampling with tools", () => {
  const tools = [{ name: "lookup", description: "Looks a word up", inputSchema: { type: "object" as const, properties: { word: { type: "string" } } } }];

  it("offers the tools natively and returns tool_use content", async () => {
    const sample = await handler([{ toolCalls: [{ name: "lookup", arguments: { word: "MCP" }, id: "call-1" }] }]);
    const result = (await sample(request({ tools, toolChoice: { mode: "required" } }), context())) as CreateMessageResultWithTools;
    expect(result.stopReason).toBe("toolUse");
    expect(result.content).toEqual([{ type: "tool_use", id: "call-1", name: "lookup", input: { word: "MCP" } }]);
    const body = chatBodies()[0];
    expect(body.tools[0].function.name).toBe("lookup");
    expect(body.tool_choice).toBe("required");
  });

  it("sends tool results back as tool messages", async () => {
    const sample = await handler([{ text: "MCP is a protocol." }]);
    await sample(
      request({
        tools,
        messages: [
          { role: "user", content: { type: "text", text: "Define MCP" } },
          { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "lookup", input: { word: "MCP" } }] },
          { role: "user", content: [{ type: "tool_result", toolUseId: "c1", content: [{ type: "text", text: "Model Context Protocol" }] }] },
        ],
      }),
      context(),
    );
    const messages = chatBodies()[0].messages;
    expect(messages[1].tool_calls[0]).toMatchObject({ id: "c1", function: { name: "lookup" } });
    expect(messages[2]).toMatchObject({ role: "tool", tool_call_id: "c1", content: "Model Context Protocol" });
  });

  it("falls back to prompt mode when the model server refuses tools, and still returns tool_use", async () => {
    const sample = await handler([{ text: '<tool_call>\n{"name": "lookup", "arguments": {"word": "MCP"}}\n</tool_call>' }], { toolsEnabled: false });
    const result = (await sample(request({ tools }), context())) as CreateMessageResultWithTools;
    expect(result.content).toEqual([expect.objectContaining({ type: "tool_use", name: "lookup", input: { word: "MCP" } })]);
    const bodies = chatBodies();
    expect(bodies.at(-1).tools).toBeUndefined();
    expect(JSON.stringify(bodies.at(-1).messages)).toContain("lookup");
  });
});

describe("sampling under the approval policy and limits", () => {
  it("refuses with the user-rejected error when nobody can be asked", async () => {
    const sample = await handler([], { approval: { policy: new ApprovalPolicy({ mode: "ask" }) } });
    await expect(sample(request(), context())).rejects.toSatisfy((error: unknown) => error instanceof ProtocolError && error.code === -1);
    expect(chatBodies()).toEqual([]);
  });

  it("asks with who and what, and 'always for this server' stops the asking", async () => {
    const asked: SamplingApprovalRequest[] = [];
    const sample = await handler([{ text: "one" }, { text: "two" }], {
      approval: { policy: new ApprovalPolicy({ mode: "ask" }), askSampling: async (r) => (asked.push(r), { decision: "allow-session" }) },
    });
    await sample(request({ systemPrompt: "sys" }), context());
    await sample(request(), context());
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ server: "srv", systemPrompt: "sys", messages: ["user: What is MCP?"], maxTokens: 64, model: "Qwen/Qwen3-8B" });
  });

  it("returns the person's refusal as the user-rejected error", async () => {
    const sample = await handler([], {
      approval: { policy: new ApprovalPolicy({ mode: "ask" }), askSampling: async () => ({ decision: "deny", reason: "not now" }) },
    });
    await expect(sample(request(), context())).rejects.toMatchObject({ code: -1, message: expect.stringContaining("not now") });
  });

  it("runs unasked for a trusted server", async () => {
    const sample = await handler([{ text: "ok" }], { approval: { policy: new ApprovalPolicy({ mode: "ask", servers: { srv: { trust: true } } }) } });
    expect((await sample(request(), context())).content).toEqual({ type: "text", text: "ok" });
  });

  it("caps a server's max_tokens at what its minute may spend, and at llm.maxTokens, asking and sending the capped number", async () => {
    const asked: SamplingApprovalRequest[] = [];
    const sample = await handler([{ text: "1" }, { text: "2" }, { text: "3" }], {
      approval: { policy: new ApprovalPolicy({ mode: "ask" }), askSampling: async (r) => (asked.push(r), { decision: "allow-once" }) },
      servers: { small: { sampling: { maxTokensPerMinute: 2000 } } },
      maxTokens: 4096,
    });
    await sample(request({ maxTokens: 1_000_000_000 }), context());
    await sample(request({ maxTokens: 1_000_000_000 }), { server: "small", signal: new AbortController().signal });
    await sample(request({ maxTokens: 100 }), context());
    const sent = chatBodies().map((body) => body.max_tokens ?? body.max_completion_tokens);
    expect(sent).toEqual([4096, 2000, 100]);
    expect(asked.map((r) => r.maxTokens)).toEqual([4096, 2000, 100]);
  });

  it("refuses beyond the server's requests per minute and tokens per minute", async () => {
    const now = 1_000_000;
    const sample = await handler([{ text: "1" }, { text: "2" }, { text: "3" }], {
      servers: { srv: { sampling: { maxRequestsPerMinute: 2 } }, tokens: { sampling: { maxTokensPerMinute: 100 } } },
      now: () => now,
    });
    await sample(request(), context());
    await sample(request(), context());
    await expect(sample(request(), context())).rejects.toThrow(/limit of 2 sampling requests per minute/);
    await expect(sample(request({ maxTokens: 500 }), { server: "tokens", signal: new AbortController().signal })).resolves.toBeDefined();
    await expect(sample(request({ maxTokens: 500 }), { server: "tokens", signal: new AbortController().signal })).rejects.toThrow(/100 sampling tokens per minute/);
  });
});

it("reads a plain sampling message as one user message", () => {
  expect(toMessages([{ role: "user", content: { type: "text", text: "hi" } }])).toEqual([{ role: "user", content: "hi" }]);
});
