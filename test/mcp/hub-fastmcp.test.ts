import { afterEach, describe, expect, it } from "vitest";
import { ApprovalPolicy } from "../../src/agent/approval.js";
import { createSamplingHandler } from "../../src/agent/sampling.js";
import { createChatModel } from "../../src/llm/create-model.js";
import type { Hub } from "../../src/mcp/hub.js";
import type { CallToolResult } from "../../src/mcp/types.js";
import { startVllmServer, type VllmReply, type VllmServer } from "../support/vllm-server.js";
import { hubPerTest } from "./hub-per-test.js";
import { fixture } from "./processes.js";

/** A server written with fastmcp asks the hub to sample (with and without tools) and to elicit. */

const hubs = hubPerTest("toolbridge-fastmcp-");
let model: VllmServer | undefined;

afterEach(async () => {
  await model?.close();
  model = undefined;
});

async function connect(replies: VllmReply[], elicited?: Record<string, string>): Promise<Hub> {
  await model?.close();
  model = await startVllmServer({ replies });
  const url = model.url;
  const hub = await hubs.connect(
    { fast: fixture("fastmcp-server.mjs") },
    {
      onSampling: createSamplingHandler({
        approval: { policy: new ApprovalPolicy({ mode: "all" }) },
        model: (name) => createChatModel({ provider: "vllm", baseURL: url, model: name ?? "Qwen/Qwen3-8B" }, {}),
      }),
      onElicitation: async () => (elicited ? { action: "accept", content: elicited } : { action: "decline" }),
    },
  );
  expect(hub.servers()[0]?.status).toBe("connected");
  return hub;
}

const text = (result: CallToolResult) => result.content.map((block) => (block.type === "text" ? block.text : "")).join("");

describe("a fastmcp server", () => {
  it("gets its sampling request answered by the model (no more 'Method not found')", async () => {
    const h = await connect([{ text: "A short text." }]);
    expect(text(await h.callTool("summarize", { text: "a long text" }))).toBe("summary by Qwen/Qwen3-8B: A short text.");
    const body = model?.requests.find((r) => r.path === "/v1/chat/completions")?.body;
    expect(body.messages[0]).toEqual({ role: "system", content: "You write one-line summaries." });
  }, 30_000);

  it("samples with tools: the model's tool use goes back, the server's tool result comes in, the model answers", async () => {
    const h = await connect([{ toolCalls: [{ name: "lookup", arguments: { word: "MCP" } }] }, { text: "MCP is the Model Context Protocol." }]);
    expect(text(await h.callTool("define", { word: "MCP" }))).toBe("definition: MCP is the Model Context Protocol.");
    const second = model?.requests.filter((r) => r.path === "/v1/chat/completions")[1]?.body;
    expect(second.messages.find((m: { role: string }) => m.role === "tool").content).toBe("Model Context Protocol");
  }, 30_000);

  it("gets its elicitation answered, or declined", async () => {
    const h = await connect([], { name: "Ada" });
    expect(text(await h.callTool("greet", {}))).toBe("Hello, Ada!");
    const declined = await connect([]);
    expect(text(await declined.callTool("greet", {}))).toBe("No name given (decline).");
  }, 30_000);
});
