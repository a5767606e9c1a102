/**
 * The hub against the raw SDK clients (v1, and v2 which the hub is built on) and the Vercel AI
 * SDK's MCP client, side by side in one run on the same kind of server (server-everything over stdio):
 *   1. sequential tools/call round trips of `echo` (p50, p99, ratio to the faster raw SDK client);
 *   2. connect time for 5 servers against 1 (each peer connecting in parallel).
 * Goals: the hub's p50 within 1.05x the faster raw SDK client's; 5 servers connect in at most 2.5x one.
 *
 * Each client of the round trips runs alone in a process of its own, as it does in use. In one process the
 * hub and the raw v2 clients share the v2 SDK's code, so each one's calls (other transports, other options)
 * made that code polymorphic for the others while v1 and @ai-sdk/mcp kept theirs to themselves, and one
 * client's garbage was collected in the next one's block: the ratios moved with the order the clients were
 * connected in (the hub connected first: 1.35x instead of 1.76x).
 */
import { fork, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioClientTransportV2 } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { ServerConfig } from "../src/config/schema.js";
import { Hub } from "../src/mcp/hub.js";

const EVERYTHING = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const SERVER = { command: process.execPath, args: [EVERYTHING, "stdio"] };
const CALLS = 2000;
const WARMUP = 200;
const CONNECT_REPEATS = 5;

interface Peer {
  name: string;
  /** Connects like another peer; measured for round trips only. */
  roundTripsOnly?: true;
  /** Connects `count` servers and returns one echo function per server and a closer. */
  connect(count: number): Promise<{ echo: (message: string) => Promise<unknown>; close: () => Promise<void> }>;
}

/** The raw SDK client of either major version: connect, list tools, call. */
interface RawClient {
  listTools(): Promise<unknown>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

async function connectSdkClients<C extends RawClient>(count: number, open: () => Promise<C>): Promise<{ client: C; close: () => Promise<void> }> {
  const clients = await Promise.all(
    Array.from({ length: count }, async () => {
      const client = await open();
      await client.listTools();
      return client;
    }),
  );
  return { client: clients[0] as C, close: async () => void (await Promise.all(clients.map((c) => c.close()))) };
}

async function openV1(): Promise<Client> {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ ...SERVER, stderr: "ignore" }));
  return client;
}

async function openV2(): Promise<ClientV2> {
  const client = new ClientV2({ name: "bench", version: "1.0.0" });
  await client.connect(new StdioClientTransportV2({ ...SERVER, stderr: "ignore" }));
  return client;
}

const peers: Peer[] = [
  {
    name: "raw SDK v1 Client",
    async connect(count) {
      const { client, close } = await connectSdkClients(count, openV1);
      return { echo: async (message) => client.callTool({ name: "echo", arguments: { message } }), close };
    },
  },
  {
    name: "raw SDK v2 Client",
    async connect(count) {
      const { client, close } = await connectSdkClients(count, openV2);
      return { echo: async (message) => client.callTool({ name: "echo", arguments: { message } }), close };
    },
  },
  {
    // What the hub asks of every call: a progress token (progress events, timeout reset by progress).
    name: "raw SDK v2 + progress",
    roundTripsOnly: true,
    async connect(count) {
      const { client, close } = await connectSdkClients(count, openV2);
      const options = { timeout: 60_000, resetTimeoutOnProgress: true, onprogress: () => undefined };
      return { echo: async (message) => client.callTool({ name: "echo", arguments: { message } }, options), close };
    },
  },
  {
    // The same of v1, so that the hub can be set against both raw clients asked what it asks.
    name: "raw SDK v1 + progress",
    roundTripsOnly: true,
    async connect(count) {
      const { client, close } = await connectSdkClients(count, openV1);
      const options = { timeout: 60_000, resetTimeoutOnProgress: true, onprogress: () => undefined };
      return { echo: async (message) => client.callTool({ name: "echo", arguments: { message } }, undefined, options), close };
    },
  },
  {
    name: "toolbridge Hub",
    async connect(count) {
      const servers: Record<string, ServerConfig> = {};
      for (let i = 0; i < count; i++) servers[`s${i}`] = { ...SERVER };
      // No start-up timeout of its own, as the other clients have none: on a loaded machine five servers
      // took over the default 15 s, and the connect table was lost to that failure.
      const hub = await Hub.connect(servers, { stderrLogFile: "/dev/null", defaultStartupTimeoutMs: 600_000 });
      const failed = hub.servers().filter((s) => s.status !== "connected");
      if (failed.length) throw new Error(`hub: ${failed.map((s) => s.error).join("; ")}`);
      const tool = hub.tools().find((t) => t.server === "s0" && t.originalName === "echo")?.name ?? "echo";
      return { echo: async (message) => hub.callTool(tool, { message }), close: () => hub.close() };
    },
  },
  {
    name: "@ai-sdk/mcp",
    async connect(count) {
      const clients = await Promise.all(
        Array.from({ length: count }, async () => {
          const client = await createMCPClient({ transport: new Experimental_StdioMCPTransport({ ...SERVER, stderr: "ignore" }) });
          return { client, tools: await client.tools() };
        }),
      );
      const echoTool = clients[0]?.tools.echo;
      if (!echoTool?.execute) throw new Error("@ai-sdk/mcp: no echo tool");
      const execute = echoTool.execute;
      let id = 0;
      return {
        echo: async (message) => execute({ message }, { toolCallId: String(++id), messages: [] }),
        close: async () => void (await Promise.all(clients.map((c) => c.client.close()))),
      };
    },
  },
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function median(values: number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
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
  const child = fork(fileURLToPath(import.meta.url), [PEER_FLAG, name], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const next = <T>(): Promise<T> =>
    new Promise((resolve, reject) => {
      const onExit = () => reject(new Error(`${name}: its process exited`));
      child.once("exit", onExit);
      child.once("message", (message) => {
        child.off("exit", onExit);
        resolve(message as T);
      });
    });
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

/**
 * The floor under every client: spawn the servers, write initialize, wait for each reply, no
 * client code at all. On 2 cores, five servers starting at once cost what their CPU costs.
 */
async function spawnOnly(count: number): Promise<{ close: () => Promise<void> }> {
  const initialize = `${JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } },
  })}\n`;
  const children = await Promise.all(
    Array.from({ length: count }, async () => {
      const child = spawn(SERVER.command, SERVER.args, { stdio: ["pipe", "pipe", "ignore"] });
      const replied = new Promise((resolve) => child.stdout.once("data", resolve));
      child.stdin.write(initialize);
      await replied;
      return child;
    }),
  );
  return {
    close: async () =>
      void (await Promise.all(
        children.map((child) => new Promise((resolve) => (child.once("exit", resolve), child.kill("SIGKILL")))),
      )),
  };
}

async function connectTimes(): Promise<void> {
  const contenders = [
    ...peers.filter((p) => !p.roundTripsOnly).map((p) => ({ name: p.name, connect: (n: number) => p.connect(n) })),
    { name: "no client: spawn + initialize reply (floor)", connect: spawnOnly },
  ];
  const times = new Map(contenders.map((c) => [c.name, { 1: [] as number[], 5: [] as number[] }]));
  const failures = new Map<string, string>();
  // Contenders take turns within each repeat, so that a slow phase of the machine hits all alike.
  for (let repeat = 0; repeat < CONNECT_REPEATS; repeat++) {
    for (const contender of contenders) {
      for (const count of [1, 5] as const) {
        const started = performance.now();
        try {
          const { close } = await contender.connect(count);
          times.get(contender.name)?.[count].push(performance.now() - started);
          await close();
        } catch (error) {
          // One failure is a row saying so, not a lost table.
          failures.set(contender.name, `${count} server(s): ${error instanceof Error ? error.message : String(error)}`.slice(0, 120));
        }
      }
    }
  }
  const rows = contenders.map(({ name }) => {
    const one = median(times.get(name)?.[1] ?? []);
    const five = median(times.get(name)?.[5] ?? []);
    const row = { client: name, "1 server ms": one.toFixed(0), "5 servers ms": five.toFixed(0), "5 vs 1": `${(five / one).toFixed(2)}x` };
    return failures.has(name) ? { ...row, failed: failures.get(name) } : row;
  });
  console.log(`\nconnect time (median of ${CONNECT_REPEATS}): initialize plus tools/list, servers in parallel`);
  console.table(rows);
}

export async function run(): Promise<void> {
  await roundTrips();
  await connectTimes();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const peer = process.argv.indexOf(PEER_FLAG);
  await (peer === -1 ? run() : servePeer(process.argv[peer + 1] ?? ""));
}
