/**
 * What the tool-mode probe costs a user on a model's first use, in requests and seconds,
 * against the scripted vLLM server on 127.0.0.1 (TEST INFRASTRUCTURE):
 *   - a server where every mode works (3 requests), one from before strict mode that refuses
 *     `strict` (one more), and one that never answers (one request, then the time limit);
 *   - beside it, one native tool-call request made by hand with the `openai` SDK, the least a
 *     first turn costs anyway; the ratio is the probe's time over it.
 * Medians of RUNS probes each, interleaved with the direct requests.
 */
import OpenAI from "openai";
import { toolCallingFor } from "../src/agent/tool-calling.js";
import { PROBE_TOOL, probeToolModes } from "../src/agent/tool-mode-probe.js";
import { OpenAICompatibleModel } from "../src/llm/openai-compatible.js";
import { InProcessStrictMemory } from "../src/llm/strict-tools.js";
import { startVllmServer, type VllmServer } from "../test/support/vllm-server.js";

const RUNS = 30;
const HANG_TIMEOUT_MS = 1000;
const rightCall = { toolCalls: [{ name: "add", arguments: { a: 17, b: 25 } }] };
const rightText = { text: '<tool_call>\n{"name": "add", "arguments": {"a": 17, "b": 25}}\n</tool_call>' };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function directRequest(server: VllmServer): Promise<number> {
  server.push(rightCall);
  const openai = new OpenAI({ baseURL: server.url, apiKey: "EMPTY" });
  const started = performance.now();
  const stream = await openai.chat.completions.create({
    model: "Qwen/Qwen3-8B",
    messages: [{ role: "user", content: "Call the add tool with a = 17 and b = 25." }],
    tools: [{ type: "function", function: { name: PROBE_TOOL.name, parameters: PROBE_TOOL.parameters } }],
    stream: true,
  });
  for await (const _ of stream) void _;
  return performance.now() - started;
}

/** One probe on a fresh model (nothing remembered), its requests counted at the server. */
async function probeOnce(server: VllmServer, script: Parameters<VllmServer["push"]>, timeoutMs?: number): Promise<{ ms: number; requests: number }> {
  server.push(...script);
  const model = new OpenAICompatibleModel({ baseURL: server.url, model: "Qwen/Qwen3-8B", provider: "vllm", strictTools: true, strictMemory: new InProcessStrictMemory() });
  const before = server.chatRequests.length;
  const started = performance.now();
  await probeToolModes(model, { middlewares: toolCallingFor(), ...(timeoutMs ? { timeoutMs } : {}) });
  return { ms: performance.now() - started, requests: server.chatRequests.length - before };
}

export async function run(): Promise<void> {
  const modern = await startVllmServer();
  const old = await startVllmServer({ strictTools: false });
  const rows: string[][] = [];
  try {
    const direct: number[] = [];
    const cases = [
      { name: "every mode works", server: modern, script: [rightCall, rightCall, rightText] as Parameters<VllmServer["push"]>, ms: [] as number[], requests: 0 },
      { name: "strict refused (vLLM <= 0.9)", server: old, script: [rightCall, rightCall, rightText] as Parameters<VllmServer["push"]>, ms: [] as number[], requests: 0 },
    ];
    for (let i = 0; i < RUNS + 3; i++) {
      const plain = await directRequest(modern);
      if (i >= 3) direct.push(plain);
      for (const c of cases) {
        const { ms, requests } = await probeOnce(c.server, c.script);
        if (i >= 3) c.ms.push(ms);
        c.requests = requests;
      }
    }
    const base = median(direct);
    for (const c of cases) rows.push([c.name, String(c.requests), (median(c.ms) / 1000).toFixed(4), `${(median(c.ms) / base).toFixed(2)}x`]);
    const hang = await probeOnce(modern, [{ kind: "hang" }], HANG_TIMEOUT_MS);
    rows.push([`server hangs (limit ${HANG_TIMEOUT_MS / 1000} s; default 20 s)`, String(hang.requests), (hang.ms / 1000).toFixed(4), `${(hang.ms / base).toFixed(0)}x`]);
    rows.push(["one native request by hand (openai SDK)", "1", (base / 1000).toFixed(4), "1.00x"]);
  } finally {
    await Promise.all([modern.close(), old.close()]);
  }
  const header = ["probe of one model", "requests", "seconds", "vs one request"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  console.log(`\ntool-mode probe: native-strict, native and prompt mode, one forced call of add each (median of ${RUNS}; scripted vLLM on 127.0.0.1, so the model's own time is not in it)`);
  for (const line of [header, ...rows]) console.log(line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  "));
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
