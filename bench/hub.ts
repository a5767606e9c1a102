/**
 * The hub against the raw SDK clients (v1, and v2 which the hub is built on) and the Vercel AI
 * SDK's MCP client, side by side in one run on the same kind of server (server-everything over stdio):
 * sequential tools/call round trips of `echo` (p50, p99, ratio to the faster raw SDK client). Goal: the
 * hub's p50 within 1.05x the faster raw SDK client's. Connect times are bench/hub-connect.ts.
 *
 * Each client of the round trips runs alone in a process of its own, as it does in use. In one process the
 * hub and the raw v2 clients share the v2 SDK's code, so each one's calls (other transports, other options)
 * made that code polymorphic for the others while v1 and @ai-sdk/mcp kept theirs to themselves, and one
 * client's garbage was collected in the next one's block: the ratios moved with the order the clients were
 * connected in (the hub connected first: 1.35x instead of 1.76x).
 */
import { forkWorker } from "./support/forked-worker.js";
import { fileURLToPath } from "node:url";
import { peers } from "./support/mcp-peers.js";

const CALLS = 2000;
const WARMUP = 200;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const PEER_FLAG = "--round-trip-peer";

type Block = { samples: number[]; cpuMicros: number };

/** In a process of its own (see PEER_FLAG): connects one peer, warms it, then runs each block asked for over IPC. */
async function servePeer(name: string): Promise<void> {
  const peer = peers.find((p) => p.name === name);
  const send = process.send?.bind(process);
  if (!peer || !send) throw new Error(`no round-trip peer "${name}", or no parent to answer`);
  const { echo, close } = await peer.connect(1);
  for (let i = 0; i < WARMUP; i++) await echo("warm");
  process.on("message", (calls: number) => {
    void (async () => {
      if (calls === 0) {
        await close();
        process.exit(0);
      }
      const samples: number[] = [];
      // This process's CPU for the block: the client's own cost (the server's is in another process).
      const cpuStart = process.cpuUsage();
      for (let i = 0; i < calls; i++) {
        const started = performance.now();
        await echo("x");
        samples.push(performance.now() - started);
      }
      const used = process.cpuUsage(cpuStart);
      send({ samples, cpuMicros: used.user + used.system } satisfies Block);
    })();
  });
  send("ready");
}

/** A peer in a child process: `block(calls)` runs that many sequential calls there; `close()` ends it. */
async function startPeer(name: string): Promise<{ block: (calls: number) => Promise<Block>; close: () => Promise<void> }> {
  const { child, next } = forkWorker(fileURLToPath(import.meta.url), PEER_FLAG, name);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await next<"ready">();
  return {
    block: (calls) => {
      const answer = next<Block>();
      child.send(calls);
      return answer;
    },
    close: async () => {
      child.send(0);
      await exited;
    },
  };
}

async function roundTrips(): Promise<void> {
  const connected = [];
  for (const peer of peers) connected.push({ peer, ...(await startPeer(peer.name)) });
  const samples = new Map<string, number[]>(peers.map((p) => [p.name, []]));
  const cpu = new Map<string, number>(peers.map((p) => [p.name, 0]));
  try {
    // Interleaved in rounds, so that a slow phase of this shared machine hits every peer alike; the order turns
    // each round, so that no peer always runs right after the same other one.
    const rounds = 8;
    for (let round = 0; round < rounds; round++) {
      const turn = round % connected.length;
      for (const { peer, block } of [...connected.slice(turn), ...connected.slice(0, turn)]) {
        const done = await block(CALLS / rounds);
        (samples.get(peer.name) as number[]).push(...done.samples);
        cpu.set(peer.name, (cpu.get(peer.name) ?? 0) + done.cpuMicros);
      }
    }
  } finally {
    for (const { close } of connected) await close();
  }
  const p50 = (name: string) => percentile([...(samples.get(name) ?? [])].sort((a, b) => a - b), 50);
  const p99 = (name: string) => percentile([...(samples.get(name) ?? [])].sort((a, b) => a - b), 99);
  // The goal is set against whichever raw SDK client is faster in this run.
  const fastest = ["raw SDK v1 Client", "raw SDK v2 Client"].sort((a, b) => p50(a) - p50(b))[0] as string;
  console.log(`\ntools/call round trips: ${CALLS} sequential calls of server-everything echo over stdio, each client in a process of its own (ratios to ${fastest})`);
  console.table(
    peers.map((peer) => ({
      client: peer.name,
      "p50 ms": p50(peer.name).toFixed(3),
      "p99 ms": p99(peer.name).toFixed(3),
      "p50 vs faster SDK": `${(p50(peer.name) / p50(fastest)).toFixed(3)}x`,
      "p99 vs faster SDK": `${(p99(peer.name) / p99(fastest)).toFixed(3)}x`,
      "CPU µs/call": ((cpu.get(peer.name) ?? 0) / CALLS).toFixed(0),
      "CPU vs faster SDK": `${((cpu.get(peer.name) ?? 0) / (cpu.get(fastest) ?? 1)).toFixed(3)}x`,
    })),
  );
  // Every hub call carries a progress token, with the idle timeout reset by progress: the raw clients asked the same.
  const sameWork = ["raw SDK v1 + progress", "raw SDK v2 + progress"].sort((a, b) => p50(a) - p50(b))[0] as string;
  const hubName = "toolbridge Hub";
  console.log(
    `hub against ${sameWork}, the faster raw client asked what the hub asks of a call: p50 ${(p50(hubName) / p50(sameWork)).toFixed(3)}x, CPU ${((cpu.get(hubName) ?? 0) / (cpu.get(sameWork) ?? 1)).toFixed(3)}x`,
  );
}

export async function run(): Promise<void> {
  await roundTrips();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const peer = process.argv.indexOf(PEER_FLAG);
  await (peer === -1 ? run() : servePeer(process.argv[peer + 1] ?? ""));
}
