/**
 * The gateway (`toolbridge gateway`, the built CLI in a process of its own) against a scripted
 * OpenAI-compatible upstream on 127.0.0.1, with the `openai` SDK as the client:
 *   1. added latency: the same streamed request without tools, straight to the upstream,
 *      through the floor (bench/support/floor-proxy.ts: a node:http pass-through, the least any proxy
 *      adds) and through the gateway's chat completions (the `openai` SDK) and Messages API (the
 *      `@anthropic-ai/sdk`), alternating so that load hits all alike; p50 and p99 of each, added
 *      over the upstream and over the floor, and CPU time per request. Goal: under 1 ms added.
 *      Measured twice: the gateway and the floor in this process (their own cost, no scheduling
 *      between processes) and each as deployed, a process of its own. Each time first in the
 *      rounds just after start (one line: V8 is still compiling the request path then, which for
 *      the gateway's larger path takes a few thousand requests), then warm, as a gateway serving
 *      traffic is: after 3,000 requests per path, 1,000 rounds (the table).
 *   2. 200 concurrent streamed conversations, each a tool call (the bundled time server's
 *      get-date, over stdio) and an answer: errors (goal 0), conversations per second, the
 *      gateway's RSS before, at its peak and after (goal: back within 10% of before).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { GatewayModels } from "../src/gateway/models.js";
import { startGateway as startInProcess } from "../src/gateway/server.js";
import { createChatModel } from "../src/llm/create-model.js";
import { Hub } from "../src/mcp/hub.js";
import { FLOOR_FILE, startFloor } from "./support/floor-proxy.js";

export const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
export const MODEL = "bench-model";
/** Measured rounds once warm, and the requests per path that warm a process's compiler first (four at a time). */
const LATENCY_ROUNDS = 1000;
const WARM_REQUESTS = 3000;
/** The first rounds after start, while V8 still compiles the request path: measured apart, after these few. */
const COLD_SKIP = 30;
const COLD_ROUNDS = 300;
const CONVERSATIONS = 200;

/**
 * Answers by the conversation, not by a script: a request whose last message is a tool result
 * gets the answer, any other a get-date call; so concurrent conversations cannot take each other's replies.
 */
export async function startUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk: Buffer) => (raw += chunk.toString()));
    req.on("end", () => {
      if (req.url?.endsWith("/models")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: MODEL, object: "model", created: 0, owned_by: "bench" }] }));
        return;
      }
      const body = JSON.parse(raw) as { messages: { role: string }[]; tools?: unknown[] };
      const answer = body.messages.at(-1)?.role === "tool" || !body.tools?.length;
      const chunk = (delta: unknown, finish: string | null = null) =>
        `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 0, model: MODEL, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chunk({ role: "assistant", content: "" }));
      if (answer) {
        for (const piece of ["It ", "is ", "7 ", "January ", "2026."]) res.write(chunk({ content: piece }));
        res.write(chunk({}, "stop"));
      } else {
        res.write(chunk({ tool_calls: [{ index: 0, id: `call_${Math.random().toString(36).slice(2)}`, type: "function", function: { name: "get-date", arguments: "" } }] }));
        res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"format":"iso"}' } }] }));
        res.write(chunk({}, "tool_calls"));
      }
      res.write(`data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 0, model: MODEL, choices: [], usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 } })}\n\n`);
      res.end("data: [DONE]\n\n");
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface Gateway {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startGateway(upstream: string, config: Record<string, unknown>, dir: string, extraArgs: string[] = [], nodeArgs: string[] = []): Promise<Gateway> {
  const file = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(config));
  return spawnListening([...nodeArgs, CLI, "gateway", "--listen", "127.0.0.1:0", "--config", file, "--base-url", upstream, "--model", MODEL, ...extraArgs], "gateway", {
    ...process.env,
    HOME: dir,
    XDG_CONFIG_HOME: dir,
    XDG_STATE_HOME: join(dir, "state"),
  });
}

/** A node process that says `listening on URL ` on stderr, once it has said so; stopped with SIGTERM. */
async function spawnListening(args: string[], what: string, env: NodeJS.ProcessEnv = process.env): Promise<Gateway> {
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], env });
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      if (stderr.length < 10_000) stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+) /.exec(stderr);
      if (!match) return;
      // A gateway logs one JSON line per request: read and dropped from here on, so that the bench spends nothing on them.
      child.stderr?.off("data", onData).resume();
      resolve(match[1] as string);
    };
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${what} exited ${code}: ${stderr}`)));
  });
  return {
    url,
    pid: child.pid as number,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** A process's CPU time so far, user and system, from /proc (ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * (1000 / CLOCK_TICKS);
}
/** The kernel's USER_HZ, in which /proc reports CPU time (100 on Linux everywhere but a few old ports). */
const CLOCK_TICKS = 100;

/** Resident memory of a process, from /proc (MiB). */
export function rssMiB(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(line?.[1] ?? 0) / 1024;
}

/** The gateway's V8 heap in use, from its own /metrics (MiB). */
async function heapUsedMiB(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^toolbridge_gateway_nodejs_heap_size_used_bytes (\d+)/m.exec(text)?.[1] ?? 0) / 2 ** 20;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function streamOnce(client: OpenAI, withUsage = true): Promise<string> {
  const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "What is the date?" }], stream: true, ...(withUsage ? { stream_options: { include_usage: true } } : {}) });
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
  return text;
}

async function streamMessage(client: Anthropic): Promise<string> {
  const stream = await client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: "user", content: "What is the date?" }], stream: true });
  let text = "";
  for await (const event of stream) if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
  return text;
}

/** A gateway in this process, with no MCP server, in front of the upstream. */
export async function startHere(upstream: string): Promise<{ url: string; stop(): Promise<void> }> {
  const hub = await Hub.connect({});
  const llm = { baseURL: upstream, model: MODEL };
  const gateway = await startInProcess({ port: 0, hub, models: new GatewayModels(await createChatModel(llm, {}), llm, {}), settings: { approve: "ask", servers: {} } });
  return {
    url: gateway.url,
    stop: async () => {
      await gateway.close();
      await hub.close();
    },
  };
}

/** The floor (bench/support/floor-proxy.ts) in a process of its own. */
function startFloorProcess(upstream: string): Promise<Gateway> {
  return spawnListening(["--import", "tsx", FLOOR_FILE, upstream], "floor proxy");
}

/** A proxy under test: with a pid, a process of its own whose CPU time is read per request. */
interface Proxy {
  url: string;
  pid?: number;
  stop(): Promise<void>;
}

async function addedLatency(upstream: string, where: string, gateway: Proxy, floor: Proxy): Promise<void> {
  try {
    const direct = new OpenAI({ baseURL: upstream, apiKey: "none", maxRetries: 0 });
    const throughFloor = new OpenAI({ baseURL: `${floor.url}/v1`, apiKey: "none", maxRetries: 0 });
    const chat = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "none", maxRetries: 0 });
    const messages = new Anthropic({ baseURL: gateway.url, apiKey: "none", maxRetries: 0 });
    const paths = {
      "straight to upstream": { once: () => streamOnce(direct), pid: undefined },
      "floor (node:http pass-through)": { once: () => streamOnce(throughFloor), pid: floor.pid },
      "chat completions": { once: () => streamOnce(chat), pid: gateway.pid },
      messages: { once: () => streamMessage(messages), pid: gateway.pid },
    };
    type Path = keyof typeof paths;
    const names = Object.keys(paths) as Path[];
    const separate = gateway.pid !== undefined;
    /** `rounds` rounds, each path once in turn; what the last `measured` of them took. */
    const measure = async (rounds: number, measured: number) => {
      const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Path, number[]>;
      // CPU time per request, what it costs whatever the machine's load: of this process (with the
      // proxies here, theirs is in it), and of the proxy's own process when it has one.
      const cpuHere = Object.fromEntries(names.map((name) => [name, 0])) as Record<Path, number>;
      const cpuProxy = Object.fromEntries(names.map((name) => [name, 0])) as Record<Path, number>;
      for (let i = 0; i < rounds; i++) {
        for (const name of names) {
          const { once, pid } = paths[name];
          const proxyStart = pid === undefined ? 0 : cpuMs(pid);
          const cpuStart = process.cpuUsage();
          const started = performance.now();
          const text = await once();
          const elapsed = performance.now() - started;
          const used = process.cpuUsage(cpuStart);
          const proxyUsed = pid === undefined ? 0 : cpuMs(pid) - proxyStart;
          if (text !== "It is 7 January 2026.") throw new Error(`${name}: unexpected answer ${JSON.stringify(text)}`);
          if (i >= rounds - measured) {
            times[name].push(elapsed);
            cpuHere[name] += (used.user + used.system) / 1000;
            cpuProxy[name] += proxyUsed;
          }
        }
      }
      for (const list of Object.values(times)) list.sort((a, b) => a - b);
      const per = (total: number) => +(total / measured).toFixed(2);
      return (name: Path) => ({
        p50_ms: +percentile(times[name], 50).toFixed(2),
        p99_ms: +percentile(times[name], 99).toFixed(2),
        cpu_ms_here: per(cpuHere[name]),
        ...(separate ? { cpu_ms_proxy: per(cpuProxy[name]) } : {}),
      });
    };
    const cold = await measure(COLD_SKIP + COLD_ROUNDS, COLD_ROUNDS);
    const coldAdded = (name: Path) => (cold(name).p50_ms - cold("straight to upstream").p50_ms).toFixed(2);
    console.log(
      `\ngateway, ${where}: while V8 still compiles (rounds ${COLD_SKIP}-${COLD_SKIP + COLD_ROUNDS} after start), added p50 over upstream: floor ${coldAdded("floor (node:http pass-through)")} ms, chat completions ${coldAdded("chat completions")} ms, messages ${coldAdded("messages")} ms`,
    );
    // Then warm, as a gateway is after its first seconds of traffic: the measure below is of the request path, not of the compiler.
    await Promise.all(
      names.flatMap((name) =>
        Array.from({ length: 4 }, async () => {
          for (let i = 0; i < WARM_REQUESTS / 4; i++) await paths[name].once();
        }),
      ),
    );
    const row = await measure(LATENCY_ROUNDS, LATENCY_ROUNDS);
    console.log(`gateway: added latency, one streamed turn without tools, the gateway and the floor ${where}, warm (${WARM_REQUESTS} requests each first; ${LATENCY_ROUNDS} each, alternating)`);
    const added = (name: Path, over: Path) => {
      const [a, b] = [row(name), row(over)];
      return {
        p50_ms: +(a.p50_ms - b.p50_ms).toFixed(2),
        p99_ms: +(a.p99_ms - b.p99_ms).toFixed(2),
        cpu_ms_here: +(a.cpu_ms_here - b.cpu_ms_here).toFixed(2),
        ...(separate ? { cpu_ms_proxy: +((a.cpu_ms_proxy ?? 0) - (b.cpu_ms_proxy ?? 0)).toFixed(2) } : {}),
      };
    };
    const rows: Record<string, Record<string, number>> = Object.fromEntries(names.map((name) => [name, row(name)]));
    for (const name of ["floor (node:http pass-through)", "chat completions", "messages"] as const) rows[`added over upstream: ${name}`] = added(name, "straight to upstream");
    for (const name of ["chat completions", "messages"] as const) rows[`added over floor: ${name}`] = added(name, "floor (node:http pass-through)");
    console.table(rows);
    console.log(`load average during the run: ${loadavg().map((n) => n.toFixed(1)).join(" ")} on ${availableParallelism()} cores`);
  } finally {
    await gateway.stop();
    await floor.stop();
  }
}

async function concurrentConversations(upstream: string, dir: string): Promise<void> {
  const gateway = await startGateway(
    upstream,
    { mcpServers: { time: { command: process.execPath, args: [CLI, "serve", "time"], trust: true } }, gateway: { maxConcurrentPerKey: CONVERSATIONS } },
    dir,
  );
  try {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "none", maxRetries: 0 });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const rows: Record<string, Record<string, number | string>> = {};
    // Round 0 brings the gateway to its working size (code compiled, pools and buffers grown);
    // "before" of the later rounds is that size, and a leak would show as growth from round to round.
    for (const round of [0, 1, 2, 3]) {
      const heapBefore = await heapUsedMiB(gateway.url);
      const before = rssMiB(gateway.pid);
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(gateway.pid))), 20);
      let errors = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: CONVERSATIONS }, () =>
          streamOnce(client).then(
            (text) => {
              if (text !== "It is 7 January 2026.") errors++;
            },
            () => errors++,
          ),
        ),
      );
      const seconds = (performance.now() - started) / 1000;
      clearInterval(sampler);
      // Let the gateway settle and collect garbage at its own pace.
      await new Promise((resolve) => setTimeout(resolve, 5000));
      const after = rssMiB(gateway.pid);
      rows[`round ${round}`] = {
        errors,
        seconds: +seconds.toFixed(2),
        conversations_per_s: +(CONVERSATIONS / seconds).toFixed(1),
        rss_before_MiB: +before.toFixed(1),
        rss_peak_MiB: +peak.toFixed(1),
        rss_after_MiB: +after.toFixed(1),
        rss_after_vs_before: `${(((after - before) / before) * 100).toFixed(1)}%`,
        heap_before_MiB: +heapBefore.toFixed(1),
        heap_after_MiB: +(await heapUsedMiB(gateway.url)).toFixed(1),
      };
    }
    console.log(`\ngateway: ${CONVERSATIONS} concurrent streamed conversations, each a get-date call (stdio MCP server) and an answer; round 0 warms up`);
    console.table(rows);
  } finally {
    await gateway.stop();
  }
}

/** `only: "latency"` runs the added-latency part alone. */
export async function run(only?: "latency"): Promise<void> {
  const upstream = await startUpstream();
  const dir = mkdtempSync(join(tmpdir(), "toolbridge-bench-gateway-"));
  try {
    await addedLatency(upstream.url, "in this process", await startHere(upstream.url), await startFloor(upstream.url));
    await addedLatency(upstream.url, "each in a process of its own", await startGateway(upstream.url, { mcpServers: {} }, dir), await startFloorProcess(upstream.url));
    if (only !== "latency") await concurrentConversations(upstream.url, dir);
  } finally {
    await upstream.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await run(process.argv[2] === "latency" ? "latency" : undefined);
