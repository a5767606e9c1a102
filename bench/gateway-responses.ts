/**
 * The Responses API of the gateway, against the scripted upstream of bench/gateway.ts:
 *   1. added latency: a streamed Responses turn without tools through the gateway (in this
 *      process) against the same turn as a streamed chat completion straight to the upstream,
 *      alternating; p50 and p99 of each.
 *   2. two gateway replicas sharing one Redis (Debian's redis-server, no persistence):
 *      400 concurrent conversations, each two streamed Responses turns, the first on one
 *      replica (a get-date tool call over stdio, then the answer, stored in Redis), the
 *      second on the other with previous_response_id; errors (goal 0), conversations per
 *      second, each replica's RSS at its peak, and its RSS and V8 heap in use after each round
 *      once a full garbage collection has run, against where the warm-up round left them
 *      (goal: within 10%); a leak shows as heap growing round after round.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { REDIS_SERVER, startRedis } from "../test/support/redis-server.js";
import { CLI, MODEL, percentile, rssMiB, startGateway, startHere, startUpstream, type Gateway } from "./gateway.js";

const LATENCY_ROUNDS = 1000;
/** Requests that warm V8's compiler first, four at a time, as in bench/gateway.ts: the measure is of a gateway serving traffic. */
const WARM_REQUESTS = 3000;
const CONVERSATIONS = 400;
const ANSWER = "It is 7 January 2026.";
const ROUNDS = 6;

/**
 * For the bench only: node options under which a gateway, on SIGUSR2, runs a full garbage
 * collection and writes its memory use to memory-<pid>.json in its HOME (the bench's directory).
 */
const COLLECT_ON_SIGNAL = [
  "--expose-gc",
  `--import=data:text/javascript,${encodeURIComponent(
    `import { writeFileSync } from "node:fs"; process.on("SIGUSR2", () => { gc(); writeFileSync(process.env.HOME + "/memory-" + process.pid + ".json", JSON.stringify(process.memoryUsage())); });`,
  )}`,
];

/** A gateway's V8 heap in use once all its garbage is collected, and its RSS a second later, once V8 has given freed pages back (MiB). */
async function collectedMiB(gateway: Gateway, dir: string): Promise<{ rss: number; heap: number }> {
  const file = join(dir, `memory-${gateway.pid}.json`);
  rmSync(file, { force: true });
  process.kill(gateway.pid, "SIGUSR2");
  for (let wait = 0; wait < 100; wait++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (!existsSync(file)) continue;
    const usage = JSON.parse(readFileSync(file, "utf8")) as NodeJS.MemoryUsage;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return { rss: rssMiB(gateway.pid), heap: usage.heapUsed / 2 ** 20 };
  }
  throw new Error(`gateway ${gateway.pid} did not report its memory within 10 s of SIGUSR2`);
}

async function streamResponse(client: OpenAI, options: { previous?: string } = {}): Promise<{ text: string; id: string }> {
  const stream = await client.responses.create({ model: MODEL, input: "What is the date?", stream: true, ...(options.previous ? { previous_response_id: options.previous } : {}) });
  let text = "";
  let id = "";
  for await (const event of stream) {
    if (event.type === "response.output_text.delta") text += event.delta;
    else if (event.type === "response.completed") id = event.response.id;
    else if (event.type === "response.failed" || event.type === "error") throw new Error(JSON.stringify(event));
  }
  return { text, id };
}

async function streamChat(client: OpenAI): Promise<string> {
  const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "What is the date?" }], stream: true, stream_options: { include_usage: true } });
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
  return text;
}

async function addedLatency(upstream: string): Promise<void> {
  const gateway = await startHere(upstream);
  try {
    const direct = new OpenAI({ baseURL: upstream, apiKey: "none", maxRetries: 0 });
    const through = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "none", maxRetries: 0 });
    const times = { direct: [] as number[], gateway: [] as number[] };
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let i = 0; i < WARM_REQUESTS / 4; i++) await Promise.all([streamChat(direct), streamResponse(through)]);
      }),
    );
    for (let i = 0; i < LATENCY_ROUNDS; i++) {
      let started = performance.now();
      const chat = await streamChat(direct);
      const directMs = performance.now() - started;
      started = performance.now();
      const { text } = await streamResponse(through);
      const gatewayMs = performance.now() - started;
      if (chat !== ANSWER || text !== ANSWER) throw new Error(`unexpected answers ${JSON.stringify([chat, text])}`);
      times.direct.push(directMs);
      times.gateway.push(gatewayMs);
    }
    const d = times.direct.sort((a, b) => a - b);
    const g = times.gateway.sort((a, b) => a - b);
    console.log(`\ngateway: added latency, a streamed Responses turn without tools (gateway in this process, stored) vs a streamed chat completion straight to the upstream, warm (${WARM_REQUESTS} of each first; ${LATENCY_ROUNDS} each, alternating)`);
    console.table({
      "chat completion, straight to upstream": { p50_ms: +percentile(d, 50).toFixed(2), p99_ms: +percentile(d, 99).toFixed(2) },
      "Responses turn through the gateway": { p50_ms: +percentile(g, 50).toFixed(2), p99_ms: +percentile(g, 99).toFixed(2) },
      added: { p50_ms: +(percentile(g, 50) - percentile(d, 50)).toFixed(2), p99_ms: +(percentile(g, 99) - percentile(d, 99)).toFixed(2) },
    });
    console.log(`load average during the run: ${loadavg().map((n) => n.toFixed(1)).join(" ")} on ${availableParallelism()} cores`);
  } finally {
    await gateway.stop();
  }
}

async function replicas(upstream: string, dir: string): Promise<void> {
  if (!existsSync(REDIS_SERVER)) {
    console.log(`\ngateway replicas: skipped, ${REDIS_SERVER} is not installed`);
    return;
  }
  const redis = await startRedis();
  const config = { mcpServers: { time: { command: process.execPath, args: [CLI, "serve", "time"], trust: true } }, gateway: { maxConcurrentPerKey: CONVERSATIONS * 2 } };
  const gateways = await Promise.all([0, 1].map(() => startGateway(upstream, config, dir, ["--store", redis.url], COLLECT_ON_SIGNAL)));
  try {
    const clients = gateways.map((gateway) => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "none", maxRetries: 0 }));
    const rows: Record<string, Record<string, number | string>> = {};
    let warm: { rss: number; heap: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const peak = gateways.map((gateway) => rssMiB(gateway.pid));
      const sampler = setInterval(() => gateways.forEach((gateway, index) => (peak[index] = Math.max(peak[index] as number, rssMiB(gateway.pid)))), 20);
      let errors = 0;
      let firstError: unknown;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: CONVERSATIONS }, async (_, index) => {
          try {
            const first = await streamResponse(clients[index % 2] as OpenAI);
            const second = await streamResponse(clients[(index + 1) % 2] as OpenAI, { previous: first.id });
            if (first.text !== ANSWER || second.text !== ANSWER) throw new Error(`unexpected answers ${JSON.stringify([first.text, second.text])}`);
          } catch (error) {
            errors++;
            firstError ??= error;
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      clearInterval(sampler);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const after = await Promise.all(gateways.map((gateway) => collectedMiB(gateway, dir)));
      if (round === 0) warm = after;
      const row: Record<string, number | string> = { errors, seconds: +seconds.toFixed(2), conversations_per_s: +(CONVERSATIONS / seconds).toFixed(1) };
      const versus = (now: number, then: number) => `${(((now - then) / then) * 100).toFixed(1)}%`;
      after.forEach((memory, index) => {
        const start = warm[index] as { rss: number; heap: number };
        row[`r${index + 1}_rss_peak_MiB`] = +(peak[index] as number).toFixed(1);
        row[`r${index + 1}_rss_MiB`] = +memory.rss.toFixed(1);
        row[`r${index + 1}_rss_vs_warm`] = versus(memory.rss, start.rss);
        row[`r${index + 1}_heap_MiB`] = +memory.heap.toFixed(1);
        row[`r${index + 1}_heap_vs_warm`] = versus(memory.heap, start.heap);
      });
      rows[`round ${round}`] = row;
      if (firstError) console.log(`round ${round}: first error: ${firstError instanceof Error ? firstError.message : String(firstError)}`);
    }
    console.log(
      `\ngateway replicas: 2 gateways on one Redis, ${CONVERSATIONS} concurrent conversations of two Responses turns (get-date over stdio, then previous_response_id on the other replica); round 0 warms up; memory after each round once a full garbage collection has run, against round 0's`,
    );
    console.table(rows);
  } finally {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await redis.stop();
  }
}

export async function run(): Promise<void> {
  const upstream = await startUpstream();
  const dir = mkdtempSync(join(tmpdir(), "toolbridge-bench-responses-"));
  try {
    await addedLatency(upstream.url);
    await replicas(upstream.url, dir);
  } finally {
    await upstream.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await run();
