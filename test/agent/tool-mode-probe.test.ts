import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { toolCallingFor } from "../../src/agent/tool-calling.js";
import { bestMode, probeToolModes } from "../../src/agent/tool-mode-probe.js";
import { OpenAICompatibleModel } from "../../src/llm/openai-compatible.js";
import { InProcessStrictMemory } from "../../src/llm/strict-tools.js";
import { useStrictVllmServers } from "../support/strict-vllm-servers.js";
import type { VllmServer } from "../support/vllm-server.js";
import { allowAll, dateSchema, FakeHost, textResult } from "./fakes.js";

const middlewares = toolCallingFor();
const rightCall = { toolCalls: [{ name: "add", arguments: { a: 17, b: 25 } }] };
/** Qwen3 writes its calls as Hermes' <tool_call> blocks in prompt mode. */
const rightText = { text: '<tool_call>\n{"name": "add", "arguments": {"a": 17, "b": 25}}\n</tool_call>' };

// TEST INFRASTRUCTURE: scripted vLLM servers, one with strict mode and one from before it (0.9).
const servers = useStrictVllmServers();

const modelAt = (server: VllmServer) =>
  new OpenAICompatibleModel({ baseURL: server.url, model: "Qwen/Qwen3-8B", provider: "vllm", strictTools: true, strictMemory: new InProcessStrictMemory(), retry: { baseDelayMs: 1 } });

describe("the tool-mode probe", () => {
  it("asks for one call of add in each mode, one request each, and ranks strict native calls first", async () => {
    const from = servers.modern.chatRequests.length;
    servers.modern.push(rightCall, rightCall, rightText);
    const rows = await probeToolModes(modelAt(servers.modern), { middlewares });
    expect(rows.map(({ mode, ok }) => [mode, ok])).toEqual([
      ["native-strict", true],
      ["native", true],
      ["prompt", true],
    ]);
    expect(rows.every((row) => row.ms >= 0 && row.detail === undefined)).toBe(true);
    expect(bestMode(rows)).toBe("native-strict");
    const requests = servers.modern.chatRequests.slice(from).map((r) => r.body);
    expect(requests).toHaveLength(3);
    expect(requests.map((body) => body.tools?.[0]?.function.strict)).toEqual([true, undefined, undefined]);
    expect(requests[2]?.tools).toBeUndefined();
    expect(requests[2]?.messages.at(-1).content).toContain("a = 17 and b = 25");
  });

  it("fails native-strict on a server that refuses strict, with the reason, in one extra request", async () => {
    const from = servers.old.chatRequests.length;
    servers.old.push(rightCall, rightCall, rightText);
    const rows = await probeToolModes(modelAt(servers.old), { middlewares });
    expect(rows[0]).toMatchObject({ mode: "native-strict", ok: false, detail: "the server refuses strict tool definitions" });
    expect(bestMode(rows)).toBe("native");
    expect(servers.old.chatRequests.length - from).toBe(4);
  });

  it("gives a server that lies one clear line per mode: a wrong tool, wrong arguments, prose", async () => {
    servers.modern.push({ toolCalls: [{ name: "subtract", arguments: { a: 17, b: 25 } }] }, { toolCalls: [{ name: "add", arguments: '{"a": "seventeen"' }] }, { text: "The answer is 42." });
    const rows = await probeToolModes(modelAt(servers.modern), { middlewares });
    expect(rows.map((row) => [row.mode, row.ok, row.detail])).toEqual([
      ["native-strict", false, "called subtract instead of add"],
      ["native", false, 'arguments are not JSON: {"a": "seventeen"'],
      ["prompt", false, "no tool call; it wrote: The answer is 42."],
    ]);
    expect(bestMode(rows)).toBeUndefined();
  });

  it("counts a server error as that mode's failure without retrying it", async () => {
    const from = servers.modern.chatRequests.length;
    servers.modern.push({ kind: "error", status: 503, message: "overloaded" }, rightCall, rightText);
    const rows = await probeToolModes(modelAt(servers.modern), { middlewares });
    expect(rows[0]).toMatchObject({ mode: "native-strict", ok: false, detail: "the server failed (HTTP 503)" });
    expect(bestMode(rows)).toBe("native");
    expect(servers.modern.chatRequests.length - from).toBe(3);
  });

  it("stops at a server that does not answer: one request, bounded by the time limit, the rest not tried", async () => {
    const from = servers.modern.chatRequests.length;
    servers.modern.push({ kind: "hang" });
    const rows = await probeToolModes(modelAt(servers.modern), { middlewares, timeoutMs: 300 });
    expect(rows.map((row) => [row.mode, row.ok, row.detail])).toEqual([
      ["native-strict", false, "no answer in 0.3 s"],
      ["native", false, "not tried: no answer to native-strict in 0.3 s"],
      ["prompt", false, "not tried: no answer to native-strict in 0.3 s"],
    ]);
    expect(servers.modern.chatRequests.length - from).toBe(1);
  });

  it("does not try native-strict with a provider that has no strict switch", async () => {
    servers.modern.push(rightCall, rightText);
    // A stand-in for an adapter without a strict switch (Gemini's): the same server, no strictTools.
    const vllm = modelAt(servers.modern);
    const model = { provider: "gemini", modelId: "Qwen/Qwen3-8B", stream: vllm.stream.bind(vllm) };
    const rows = await probeToolModes(model, { middlewares });
    expect(rows[0]).toMatchObject({ mode: "native-strict", ok: false, ms: 0, detail: "not tried: gemini has no strict tool calls" });
    expect(bestMode(rows)).toBe("native");
  });
});

describe("a session in tool mode auto follows the probe", () => {
  const turn = async (probedMode: "native-strict" | "native" | "prompt", toolMode: "auto" | "native" = "auto") => {
    const from = servers.modern.chatRequests.length;
    servers.modern.push({ text: "Done." });
    const tools = new FakeHost({ "get-date": { schema: dateSchema, run: () => textResult("2026-01-07") } });
    const agent = new Agent({ model: modelAt(servers.modern), tools, toolMode, probedMode, approval: allowAll });
    await agent.send("What is the date?");
    return servers.modern.chatRequests[from]?.body;
  };

  it("sends strict tools after a probe found native-strict best, plain native tools after native, no tools after prompt", async () => {
    expect((await turn("native-strict")).tools[0].function.strict).toBe(true);
    expect((await turn("native")).tools[0].function.strict).toBeUndefined();
    expect((await turn("prompt")).tools).toBeUndefined();
  });

  it("ignores the probe when a tool mode is set", async () => {
    expect((await turn("prompt", "native")).tools).toBeDefined();
  });
});
