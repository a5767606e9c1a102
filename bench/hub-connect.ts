/**
 * Connect time of 5 stdio servers against 1 (initialize plus tools/list, the servers in parallel), for the hub
 * and the clients of bench/support/mcp-peers.ts, beside a floor with no client at all. Goal: the hub's ratio
 * the lowest of the clients.
 *
 * On 2 cores five servers starting together cost what their CPU costs, so one noisy connect decided the
 * ratio (the hub 2.17x in one run, 3.27x in the next). So: each contender runs in a process of its own (in
 * one process the clients' code and garbage were shared), warmed by one connect of each size; the contenders
 * take turns REPEATS times, the order turning each repeat and 1 and 5 swapping, and the ratio is the median of
 * each repeat's 5 over the 1 taken right beside it, so a slow phase of the machine hits both sides of a ratio.
 * Beside the wall times, CPU per connect: the client's own process, and the servers it started and reaped.
 *
 * The ratio stays noisy: one server's connect took 210 to 510 ms in one run, the floor's as much as the
 * clients'. Over 21 repeats the 90% bootstrap interval of a client's median ratio was about ±0.4, wider than
 * the gaps between the clients. So the middle half of each client's ratios is shown beside its median: where
 * they overlap, the clients are tied in that run.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { forkWorker } from "./support/forked-worker.js";
import { fileURLToPath } from "node:url";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { peers, SERVER } from "./support/mcp-peers.js";

const REPEATS = 15;
const SIZES = [1, 5] as const;
const FLOOR = "no client: spawn + initialize reply (floor)";
const CONTENDER_FLAG = "--connect-contender";

/**
 * The floor under every client: spawn the servers, write initialize, wait for each reply, no client code at
 * all. With the environment the SDKs give a server (getDefaultEnvironment): with all of this process's, a
 * server read NODE_EXTRA_CA_CERTS at start-up and the floor was slower than the clients.
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
      const child = spawn(SERVER.command, SERVER.args, { stdio: ["pipe", "pipe", "ignore"], env: getDefaultEnvironment() });
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

const contenders: { name: string; connect: (count: number) => Promise<{ close: () => Promise<void> }> }[] = [
  ...peers.filter((p) => !p.roundTripsOnly).map((p) => ({ name: p.name, connect: (count: number) => p.connect(count) })),
  { name: FLOOR, connect: spawnOnly },
];

interface Sample {
  wallMs: number;
  /** This process's CPU from the start of the connect to the end of its close. */
  clientCpuMs: number;
  /** CPU of the children reaped meanwhile: the servers (and the hub's watchdog), every one waited for. */
  serversCpuMs: number;
}

/** CPU ms of this process's reaped children (cutime + cstime of /proc/self/stat, clock ticks of 10 ms); 0 without /proc. */
function reapedChildrenCpuMs(): number {
  if (process.platform !== "linux") return 0;
  const fields = (readFileSync("/proc/self/stat", "utf8").split(") ")[1] ?? "").split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/**
 * Waits until every child of this process has exited and been reaped, at most 10 s: @ai-sdk/mcp's close does
 * not wait for its servers, and its next connect of one server ran beside five servers still ending, whose
 * CPU was then counted there. Where /proc has no children lists, returns at once.
 */
async function childrenGone(): Promise<void> {
  const deadline = performance.now() + 10_000;
  const children = (): string => {
    try {
      return readdirSync("/proc/self/task")
        .map((task) => readFileSync(`/proc/self/task/${task}/children`, "utf8"))
        .join("")
        .trim();
    } catch {
      return "";
    }
  };
  while (children() !== "" && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** In a process of its own (see CONTENDER_FLAG): one contender, warmed, connecting as many servers as asked over IPC. */
async function serveContender(name: string): Promise<void> {
  const contender = contenders.find((c) => c.name === name);
  const send = process.send?.bind(process);
  if (!contender || !send) throw new Error(`no connect contender "${name}", or no parent to answer`);
  const once = async (count: number): Promise<Sample> => {
    const cpu = process.cpuUsage();
    const reaped = reapedChildrenCpuMs();
    const started = performance.now();
    const { close } = await contender.connect(count);
    const wallMs = performance.now() - started;
    await close();
    await childrenGone();
    const used = process.cpuUsage(cpu);
    return { wallMs, clientCpuMs: (used.user + used.system) / 1000, serversCpuMs: reapedChildrenCpuMs() - reaped };
  };
  for (const count of SIZES) await once(count);
  process.on("message", (count: number) => {
    if (count === 0) process.exit(0);
    once(count).then(
      (sample) => send(sample),
      (error: unknown) => send({ error: `${count} server(s): ${error instanceof Error ? error.message : String(error)}`.slice(0, 120) }),
    );
  });
  send("ready");
}

/** A contender in a child process: `connect(count)` connects and closes that many servers there. */
async function startContender(name: string): Promise<{ connect: (count: number) => Promise<Sample | { error: string }>; close: () => void }> {
  const { child, next } = forkWorker(fileURLToPath(import.meta.url), CONTENDER_FLAG, name);
  await next<"ready">();
  return {
    connect: (count) => {
      const answer = next<Sample | { error: string }>();
      child.send(count);
      return answer;
    },
    close: () => void child.send(0),
  };
}

/** The value a fraction `at` of the way through the sorted values (0.5: the median). */
function quantile(values: number[], at: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) * at + 0.5)] ?? Number.NaN;
}

function median(values: number[]): number {
  return quantile(values, 0.5);
}

function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

export async function run(): Promise<void> {
  const started = [];
  for (const { name } of contenders) started.push({ name, ...(await startContender(name)) });
  const samples = new Map(contenders.map(({ name }) => [name, { 1: [] as Sample[], 5: [] as Sample[], ratios: [] as number[] }]));
  const failures = new Map<string, string>();
  try {
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      const turn = repeat % started.length;
      for (const { name, connect } of [...started.slice(turn), ...started.slice(0, turn)]) {
        const of = samples.get(name) as { 1: Sample[]; 5: Sample[]; ratios: number[] };
        const pair: Partial<Record<1 | 5, Sample>> = {};
        for (const count of repeat % 2 === 0 ? SIZES : [...SIZES].reverse()) {
          const sample = await connect(count);
          // One failure is a row saying so, not a lost table.
          if ("error" in sample) failures.set(name, sample.error);
          else of[count].push((pair[count] = sample));
        }
        if (pair[1] && pair[5]) of.ratios.push(pair[5].wallMs / pair[1].wallMs);
      }
    }
  } finally {
    for (const { close } of started) close();
  }
  console.log(
    `\nconnect time: initialize plus tools/list, servers in parallel; each contender in a process of its own, ${REPEATS} interleaved repeats,` +
      " medians; \"5 vs 1\" the median of each repeat's own ratio, and the middle half of those ratios; CPU the mean per connect (client process, and the servers it reaped), and all of it 5 against 1",
  );
  console.table(
    contenders.map(({ name }) => {
      const of = samples.get(name) as { 1: Sample[]; 5: Sample[]; ratios: number[] };
      const wall = (count: 1 | 5) => median(of[count].map((s) => s.wallMs));
      const client = (count: 1 | 5) => mean(of[count].map((s) => s.clientCpuMs));
      const servers = (count: 1 | 5) => mean(of[count].map((s) => s.serversCpuMs));
      const row = {
        client: name,
        "1 server ms": wall(1).toFixed(0),
        "5 servers ms": wall(5).toFixed(0),
        "5 vs 1": `${median(of.ratios).toFixed(2)}x`,
        "middle half": `${quantile(of.ratios, 0.25).toFixed(2)}-${quantile(of.ratios, 0.75).toFixed(2)}`,
        "client CPU ms 1 / 5": `${client(1).toFixed(0)} / ${client(5).toFixed(0)}`,
        "servers CPU ms 1 / 5": `${servers(1).toFixed(0)} / ${servers(5).toFixed(0)}`,
        // What five cost against one in CPU, the client's and its servers': on a loaded machine, wall times measure the others too.
        "CPU 5 vs 1": `${((client(5) + servers(5)) / (client(1) + servers(1))).toFixed(2)}x`,
      };
      return failures.has(name) ? { ...row, failed: failures.get(name) } : row;
    }),
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const contender = process.argv.indexOf(CONTENDER_FLAG);
  await (contender === -1 ? run() : serveContender(process.argv[contender + 1] ?? ""));
}
