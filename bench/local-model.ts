/**
 * The local model (--provider local) on this CPU with the tiny test GGUF (random weights,
 * embedding 64, 2 blocks): time to load it, time to first token and tokens per second of a
 * free answer, and the time of one tool call held to add's schema by the grammar. The model is
 * tiny, so the figures measure toolbridge's and node-llama-cpp's overhead per token more than
 * llama.cpp's arithmetic. One thread, as on a shared machine; the median of RUNS each.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalModel } from "../src/llm/local-model.js";
import type { ChatRequest, ToolDefinition } from "../src/llm/types.js";
import { writeTinyGguf } from "../test/support/tiny-gguf.js";

const RUNS = 5;
const TOKENS = 128;

const add: ToolDefinition = {
  name: "add",
  description: "Add two numbers (a + b).",
  parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Time to the first text, tokens per second after it, and the whole time, of one request. */
async function timed(model: LocalModel, request: ChatRequest): Promise<{ firstMs: number; perSecond: number; totalMs: number }> {
  const started = performance.now();
  let first: number | undefined;
  let tokens = 0;
  for await (const event of model.stream(request)) {
    if (event.type === "text-delta" && first === undefined) first = performance.now();
    if (event.type === "usage") tokens = event.usage.outputTokens;
  }
  const ended = performance.now();
  const firstAt = first ?? ended;
  return { firstMs: firstAt - started, perSecond: tokens > 1 ? ((tokens - 1) * 1000) / (ended - firstAt) : 0, totalMs: ended - started };
}

export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "toolbridge-bench-local-"));
  try {
    const path = join(dir, "tiny.gguf");
    const bytes = await writeTinyGguf(path);
    const loadStarted = performance.now();
    const model = await LocalModel.open({ path, threads: 1, temperature: 0 });
    const loadMs = performance.now() - loadStarted;
    const answers = [];
    const calls = [];
    for (let i = 0; i < RUNS; i++) {
      // A new question each time, so no run reuses the last one's evaluated prompt.
      answers.push(await timed(model, { messages: [{ role: "user", content: `Say something, ${i}.` }], maxTokens: TOKENS }));
      calls.push(await timed(model, { messages: [{ role: "user", content: `What is ${i}+3?` }], tools: [add], toolChoice: "required", maxTokens: TOKENS }));
    }
    await model.close();
    console.log(`\nlocal model: the tiny test GGUF (${Math.round(bytes / 1024)} KiB, random weights), one CPU thread, median of ${RUNS}`);
    const rows = [
      ["load (node-llama-cpp, llama.cpp, the file)", `${loadMs.toFixed(0)} ms`],
      ["time to first token", `${median(answers.map((a) => a.firstMs)).toFixed(1)} ms`],
      [`tokens per second (${TOKENS}-token answer)`, `${median(answers.map((a) => a.perSecond)).toFixed(0)}`],
      ["one tool call under the grammar (add)", `${median(calls.map((c) => c.totalMs)).toFixed(1)} ms`],
    ];
    const width = Math.max(...rows.map((row) => row[0]!.length));
    for (const [label, value] of rows) console.log(`${label!.padEnd(width)}  ${value}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
