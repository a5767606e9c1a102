/**
 * The agentic loop's own cost per turn. One turn = two streamed model requests (a tool call,
 * then the answer) and one MCP tool call, against the scripted vLLM server and an MCP server
 * over Streamable HTTP, both on 127.0.0.1:
 *   - direct: the same requests made by hand with the `openai` SDK and the raw MCP SDK client;
 *   - toolbridge: `Agent.send` over the OpenAI-compatible adapter and the Hub.
 * Turns alternate between the two so that machine load hits both alike; medians are compared.
 * Also the loop alone (a model and a host that answer at once), which isolates what the
 * agent itself adds. Measured with 1 and with 100 tools offered. Goal: under 1 ms added per turn.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import OpenAI from "openai";
import { z } from "zod";
import { Agent } from "../src/agent/agent.js";
import { ApprovalPolicy } from "../src/agent/approval.js";
import type { ToolHost } from "../src/agent/tool-host.js";
import { createChatModel } from "../src/llm/create-model.js";
import type { ChatModel, StreamEvent } from "../src/llm/types.js";
import { Hub } from "../src/mcp/hub.js";
import type { HubTool } from "../src/mcp/types.js";
import { serveHttp } from "../src/servers/http.js";
import { startVllmServer, type VllmServer } from "../test/support/vllm-server.js";

const TURNS = 200;
const WARMUP = 20;
const LOOP_TURNS = 5000;
const QUESTION = "What's the date in Taipei?";

function toolServer(toolCount: number): McpServer {
  const server = new McpServer({ name: "bench-tools", version: "1.0.0" });
  for (let i = 0; i < toolCount; i++) {
    server.registerTool(
      `tool_${i}`,
      { description: `Bench tool number ${i}: returns the date in a zone.`, inputSchema: z.object({ timezone: z.string().describe("IANA zone"), format: z.enum(["iso", "locale"]).optional() }) },
      ({ timezone }) => ({ content: [{ type: "text", text: `2026-01-07 in ${timezone}` }] }),
    );
  }
  return server;
}

function scriptTurn(vllm: VllmServer): void {
  vllm.push({ toolCalls: [{ name: "tool_0", arguments: { timezone: "Asia/Taipei" } }] }, { text: "It is 7 January 2026 in Taipei." });
}

/** The turn written by hand, as a careful user of the two SDKs would. */
async function directTurn(openai: OpenAI, mcp: Client, model: string, tools: OpenAI.Chat.Completions.ChatCompletionTool[]): Promise<string> {
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: "user", content: QUESTION }];
  for (;;) {
    const stream = await openai.chat.completions.create({ model, messages, tools, stream: true, stream_options: { include_usage: true } });
    let text = "";
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      if (!delta) continue;
      if (delta.content) text += delta.content;
      for (const part of delta.tool_calls ?? []) {
        const call = (calls[part.index] ??= { id: "", name: "", arguments: "" });
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name = part.function.name;
        if (part.function?.arguments) call.arguments += part.function.arguments;
      }
    }
    if (calls.length === 0) return text;
    messages.push({ role: "assistant", content: text || null, tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })) });
    const results = await Promise.all(calls.map((c) => mcp.callTool({ name: c.name, arguments: JSON.parse(c.arguments) as Record<string, unknown> })));
    calls.forEach((c, i) => {
      const content = (results[i]?.content as Array<{ type: string; text?: string }>).map((p) => p.text ?? "").join("\n");
      messages.push({ role: "tool", tool_call_id: c.id, content });
    });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

async function endToEnd(toolCount: number): Promise<{ direct: number; agent: number }> {
  const mcpServer = await serveHttp(() => toolServer(toolCount), { port: 0 });
  const vllm = await startVllmServer();
  const openai = new OpenAI({ baseURL: vllm.url, apiKey: "EMPTY" });
  const mcp = new Client({ name: "bench", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(mcpServer.url)));
  const listed = await mcp.listTools();
  const openaiTools: OpenAI.Chat.Completions.ChatCompletionTool[] = listed.tools.map((t) => ({
    type: "function",
    function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.inputSchema as Record<string, unknown> },
  }));
  const hub = await Hub.connect({ bench: { type: "streamable-http", url: mcpServer.url } }, { stderrLogFile: "/dev/null" });
  const model = await createChatModel({ baseURL: vllm.url }, {});
  const agent = new Agent({ model, tools: hub, approval: { policy: new ApprovalPolicy({ mode: "all" }) } });
  if (hub.tools().length !== toolCount) throw new Error(`hub lists ${hub.tools().length} tools, expected ${toolCount}`);

  const direct: number[] = [];
  const viaAgent: number[] = [];
  try {
    for (let i = 0; i < WARMUP + TURNS; i++) {
      scriptTurn(vllm);
      let started = performance.now();
      const answer = await directTurn(openai, mcp, model.modelId, openaiTools);
      if (i >= WARMUP) direct.push(performance.now() - started);

      scriptTurn(vllm);
      agent.clear();
      started = performance.now();
      const turn = await agent.send(QUESTION);
      if (i >= WARMUP) viaAgent.push(performance.now() - started);
      if (turn.text !== answer || turn.toolCalls[0]?.outcome !== "ok") throw new Error(`the two turns differ: ${JSON.stringify(turn.error ?? turn.text)}`);
    }
  } finally {
    await hub.close();
    await mcp.close();
    await vllm.close();
    await mcpServer.close();
  }
  return { direct: median(direct), agent: median(viaAgent) };
}

/** The loop with a model and a host that answer at once: what the agent costs by itself. */
async function loopAlone(toolCount: number): Promise<number> {
  const tools: HubTool[] = Array.from({ length: toolCount }, (_, i) => ({
    name: `tool_${i}`,
    server: "bench",
    originalName: `tool_${i}`,
    description: `Bench tool number ${i}`,
    inputSchema: { type: "object", properties: { timezone: { type: "string" }, format: { type: "string", enum: ["iso", "locale"] } }, required: ["timezone"] },
  }));
  const host: ToolHost = { tools: () => tools, callTool: async () => ({ content: [{ type: "text", text: "2026-01-07 in Asia/Taipei" }] }) };
  let request = 0;
  const replies: StreamEvent[][] = [
    [{ type: "tool-call", call: { id: "c1", name: "tool_0", arguments: '{"timezone":"Asia/Taipei"}' } }, { type: "finish", reason: "tool-calls" }],
    [{ type: "text-delta", text: "It is 7 January 2026 in Taipei." }, { type: "finish", reason: "stop" }],
  ];
  const model: ChatModel = {
    provider: "bench",
    modelId: "instant",
    async *stream() {
      yield* replies[request++ % 2] as StreamEvent[];
    },
  };
  const agent = new Agent({ model, tools: host, approval: { policy: new ApprovalPolicy({ mode: "all" }) } });
  for (let i = 0; i < 200; i++) {
    agent.clear();
    await agent.send(QUESTION);
  }
  const started = performance.now();
  for (let i = 0; i < LOOP_TURNS; i++) {
    agent.clear();
    await agent.send(QUESTION);
  }
  return ((performance.now() - started) / LOOP_TURNS) * 1000;
}

export async function run(): Promise<void> {
  const rows: string[][] = [];
  for (const toolCount of [1, 100]) {
    const { direct, agent } = await endToEnd(toolCount);
    const alone = await loopAlone(toolCount);
    rows.push([String(toolCount), direct.toFixed(2), agent.toFixed(2), `${(agent / direct).toFixed(2)}x`, (agent - direct).toFixed(2), alone.toFixed(0)]);
  }
  const header = ["tools", "openai+MCP SDK ms", "toolbridge Agent ms", "ratio", "added ms/turn", "loop alone µs/turn"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  console.log(`\nagent: one turn = 2 streamed model requests + 1 MCP tool call (median of ${TURNS} turns each, interleaved; goal < 1 ms added)`);
  for (const line of [header, ...rows]) console.log(line.map((cell, i) => cell.padStart(widths[i] ?? 0)).join("  "));
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
