/**
 * What `toolbridge eval` costs on its own, per task, against the scripted vLLM server on
 * 127.0.0.1 (TEST INFRASTRUCTURE) answering as a model that is right, with the bundled time and
 * math servers connected as the command connects them: seconds and model requests per task,
 * for the whole bundled set in native and prompt mode, one task at a time and 4 at once. The
 * model's own time is not in it: this is the harness (agent loop, tool calls over stdio, judging).
 * Median of RUNS runs of the set.
 */
import { bundledTaskSet } from "../src/agent/eval/bundled-tasks.js";
import { runEval } from "../src/agent/eval/runner.js";
import { toolCallingFor } from "../src/agent/tool-calling.js";
import type { ProbedMode } from "../src/agent/tool-mode.js";
import { defaultServers } from "../src/config/bundled-servers.js";
import { OpenAICompatibleModel } from "../src/llm/openai-compatible.js";
import { Hub } from "../src/mcp/hub.js";
import { evalResponder } from "../test/support/eval-model.js";
import { startVllmServer } from "../test/support/vllm-server.js";

const RUNS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export async function run(): Promise<void> {
  const set = bundledTaskSet();
  const server = await startVllmServer({ respond: evalResponder(set) as never });
  const hub = await Hub.connect(defaultServers());
  const rows: string[][] = [];
  try {
    const model = new OpenAICompatibleModel({ baseURL: server.url, model: "Qwen/Qwen3-8B", provider: "vllm" });
    for (const mode of ["native", "prompt"] as ProbedMode[]) {
      for (const concurrency of [1, 4]) {
        const seconds: number[] = [];
        let requests = 0;
        let right = 0;
        for (let i = 0; i < RUNS; i++) {
          const before = server.chatRequests.length;
          const [result] = await runEval({ model, host: hub, middlewares: toolCallingFor(), taskSet: set, modes: [mode], concurrency });
          seconds.push(result?.seconds ?? 0);
          requests = server.chatRequests.length - before;
          right = result?.right ?? 0;
        }
        const perTask = median(seconds) / set.tasks.length;
        rows.push([mode, String(concurrency), `${right}/${set.tasks.length}`, (requests / set.tasks.length).toFixed(2), (perTask * 1000).toFixed(1), median(seconds).toFixed(2)]);
      }
    }
  } finally {
    await hub.close();
    await server.close();
  }
  const header = ["mode", "at once", "right", "requests/task", "ms/task", "seconds/set"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  console.log(`\ntoolbridge eval's own cost: the bundled task set against a scripted right model (median of ${RUNS}; scripted vLLM on 127.0.0.1, so the model's own time is not in it)`);
  for (const line of [header, ...rows]) console.log(line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  "));
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
