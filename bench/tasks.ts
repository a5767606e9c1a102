/**
 * Task-backed tool calls (SEP-1686) against the SDK's own task support (test/fixtures/servers/task-server.mjs,
 * a task that finishes after a set time and reports the wall-clock moment it did), side by side:
 *   1. latency from completion on the server to the result in the caller, for tasks of
 *      several lengths, with the server suggesting the common pollInterval of 1000 ms:
 *      the hub (backoff from 50 ms, x2, up to pollInterval) against the raw SDK's
 *      `client.experimental.tasks.callToolStream` (polls every pollInterval);
 *   2. the caller's CPU while 20 tasks of 5 s poll at once (ms of CPU per second of wall time), and the requests
 *      each of those tasks cost, as the server counted them (tools/call, tasks/get, tasks/result).
 * The hub runs twice: against the server as it is (the SDK's server sends notifications/tasks/status, which end
 * the hub's waits) and with those notices dropped (`--no-status-notices`), where it can only poll. The raw SDK
 * polls alone whatever the server sends, so it runs against the silent server: like for like with the hub's
 * second row, with no notices to receive and drop.
 * Not the same number of requests: with no notices the hub polls more often than the SDK for the same task. Its
 * waits start at 50 ms and double up to the pollInterval (so that a short task is seen to end within its age), so
 * a 5 s task at pollInterval 1000 ms is asked about 9 times (tasks/get at 50, 150, 350, 750 ms, 1.55 s, 2.55 s ...
 * 5.55 s): 11 requests with tools/call and tasks/result. The SDK asks at once and then every pollInterval: 6 times,
 * 8 requests. The CPU figures are for those requests, not per request.
 * Goals: the hub's median latency under a third of the SDK's; 20 polling tasks under 2% of a core.
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { Hub } from "../src/mcp/hub.js";
import { median } from "./support/median.js";

const SERVER = { command: process.execPath, args: [fileURLToPath(new URL("../test/fixtures/servers/task-server.mjs", import.meta.url))] };
/** The same server sending no status notifications: the hub must poll. */
const SILENT_SERVER = { ...SERVER, args: [...SERVER.args, "--no-status-notices"] };
const LENGTHS_MS = [100, 300, 700, 1500, 3000];
const REPEATS = 3;
const PARALLEL = 20;
const PARALLEL_MS = 5000;
const POLL_INTERVAL_MS = 1000;

type Call = (ms: number) => Promise<string>;

interface Peer {
  name: string;
  /** `call` runs the timed tool as a task; `plain` calls a tool that is not one. */
  open(): Promise<{ call: Call; plain: (tool: string) => Promise<string>; close: () => Promise<void> }>;
}

function hubPeer(name: string, server: typeof SERVER): Peer {
  return {
    name,
    async open() {
      const hub = await Hub.connect({ tasks: server }, { stderrLogFile: "/dev/null", tasks: "always" });
      return {
        call: async (ms) => textOf((await hub.callTool("timed", { ms, pollInterval: POLL_INTERVAL_MS })).content),
        plain: async (tool) => textOf((await hub.callTool(tool, {})).content),
        close: () => hub.close(),
      };
    },
  };
}

const peers: Peer[] = [
  hubPeer("toolbridge Hub", SERVER),
  hubPeer("Hub, no status notices", SILENT_SERVER),
  {
    name: "raw SDK callToolStream",
    async open() {
      const client = new Client({ name: "bench", version: "1.0.0" });
      await client.connect(new StdioClientTransport({ ...SILENT_SERVER, stderr: "ignore" }));
      await client.listTools();
      return {
        async call(ms) {
          const stream = client.experimental.tasks.callToolStream({ name: "timed", arguments: { ms, pollInterval: POLL_INTERVAL_MS } }, CallToolResultSchema, {
            task: { ttl: 60_000 },
          });
          for await (const message of stream) {
            if (message.type === "result") return textOf(message.result.content);
            if (message.type === "error") throw message.error;
          }
          throw new Error("the stream ended without a result");
        },
        plain: async (tool) => textOf((await client.callTool({ name: tool, arguments: {} })).content),
        close: () => client.close(),
      };
    },
  },
];

function textOf(content: unknown): string {
  const first = (content as { type: string; text?: string }[])[0];
  return first?.text ?? "";
}

const wallNow = (): number => performance.timeOrigin + performance.now();

async function latencies(call: Call): Promise<Map<number, number>> {
  const byLength = new Map<number, number>();
  for (const ms of LENGTHS_MS) {
    const samples: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const finishedAt = Number(await call(ms));
      samples.push(wallNow() - finishedAt);
    }
    byLength.set(ms, median(samples));
  }
  return byLength;
}

async function cpuWhileParallel(call: Call): Promise<number> {
  const startCpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(Array.from({ length: PARALLEL }, () => call(PARALLEL_MS)));
  const wall = performance.now() - start;
  const used = process.cpuUsage(startCpu);
  return (used.user + used.system) / 1000 / (wall / 1000);
}

/** The task requests the server received so far (the fixture's request-counts tool), all methods together. */
async function requestsSoFar(plain: (tool: string) => Promise<string>): Promise<number> {
  const counts = JSON.parse(await plain("request-counts")) as Record<string, number>;
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

export async function run(): Promise<void> {
  console.log(`\nTask-backed calls: completion on the server -> result in the caller (median of ${REPEATS}, server pollInterval ${POLL_INTERVAL_MS} ms)`);
  const rows: { name: string; lat: Map<number, number>; cpu: number; requests: number }[] = [];
  for (const peer of peers) {
    const { call, plain, close } = await peer.open();
    try {
      await call(10); // warm up
      const lat = await latencies(call);
      const before = await requestsSoFar(plain);
      const cpu = await cpuWhileParallel(call);
      rows.push({ name: peer.name, lat, cpu, requests: ((await requestsSoFar(plain)) - before) / PARALLEL });
    } finally {
      await close();
    }
  }
  const header = ["peer".padEnd(24), ...LENGTHS_MS.map((ms) => `${ms} ms task`.padStart(13)), "median".padStart(9), `CPU ${PARALLEL} tasks`.padStart(15), "requests/task".padStart(15)];
  console.log(header.join(""));
  for (const row of rows) {
    const values = LENGTHS_MS.map((ms) => row.lat.get(ms) ?? NaN);
    console.log(
      [
        row.name.padEnd(24),
        ...values.map((v) => `${v.toFixed(0)} ms`.padStart(13)),
        `${median(values).toFixed(0)} ms`.padStart(9),
        `${row.cpu.toFixed(1)} ms/s`.padStart(15),
        row.requests.toFixed(1).padStart(15),
      ].join(""),
    );
  }
  const [hub, polling, sdk] = rows;
  if (hub && polling && sdk) {
    const ratio = median([...hub.lat.values()]) / median([...sdk.lat.values()]);
    console.log(`hub / SDK median latency: ${ratio.toFixed(2)} (goal under 0.33); hub CPU with ${PARALLEL} tasks: ${(hub.cpu / 10).toFixed(2)}% of a core, ${(polling.cpu / 10).toFixed(2)}% polling with no status notices (goal under 2%), raw SDK ${(sdk.cpu / 10).toFixed(2)}%`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
