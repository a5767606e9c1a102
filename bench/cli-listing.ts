/**
 * `toolbridge tools` from start to exit, on the bundled servers (time and math), against a
 * raw SDK script that connects the same two servers in parallel, lists their tools, prints
 * them and closes: what a person waits for at the shell prompt. Each runs as a fresh
 * process, the two alternating; median of REPEATS. Goal: within 1.2x of the raw script.
 * Beside the wall time, the CPU time of each run's whole process tree (the command and the
 * servers it started and reaped, from /proc on Linux): on a machine busy with other work,
 * wall times mostly measure the others, CPU time what each contender itself costs.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { median } from "./support/median.js";

const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const REPEATS = 15;
const exec = promisify(execFile);

/** The raw SDK, with no hub: the floor for listing two stdio servers. */
function rawScript(sdk: string): string {
  return `
import { Client } from ${JSON.stringify(`${sdk}/client/index.js`)};
import { StdioClientTransport } from ${JSON.stringify(`${sdk}/client/stdio.js`)};
const names = ["time", "math"];
const clients = await Promise.all(names.map(async (name) => {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(CLI)}, "serve", name], stderr: "ignore" }));
  return client;
}));
for (const [i, client] of clients.entries()) for (const tool of (await client.listTools()).tools) console.log(names[i], tool.name);
await Promise.all(clients.map((client) => client.close()));
`;
}

/**
 * CPU ms of this process's reaped children, their own reaped children included (cutime + cstime of
 * /proc/self/stat, in clock ticks of 10 ms); undefined where there is no /proc.
 */
function childrenCpuMs(): number | undefined {
  if (process.platform !== "linux") return undefined;
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  // After "pid (comm) ": state is field 3, cutime 16 and cstime 17.
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

interface Sample {
  wallMs: number;
  cpuMs: number | undefined;
}

async function timed(command: string, args: string[], cwd: string): Promise<Sample> {
  const cpuBefore = childrenCpuMs();
  const started = performance.now();
  await exec(command, args, { cwd, env: { ...process.env, NO_COLOR: "1", HOME: cwd, XDG_CONFIG_HOME: cwd, XDG_STATE_HOME: cwd } });
  const wallMs = performance.now() - started;
  const cpuAfter = childrenCpuMs();
  return { wallMs, cpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore };
}

export async function run(): Promise<void> {
  // A directory with no config: the bundled servers, as on a fresh machine.
  const dir = mkdtempSync(join(tmpdir(), "toolbridge-bench-cli-"));
  const script = join(dir, "raw-sdk.mjs");
  writeFileSync(script, rawScript(fileURLToPath(new URL("../node_modules/@modelcontextprotocol/sdk/dist/esm", import.meta.url))));
  const contenders = [
    { name: "raw SDK script", command: process.execPath, args: [script] },
    { name: "toolbridge tools", command: process.execPath, args: [CLI, "tools"] },
  ];
  const samples = new Map(contenders.map((c) => [c.name, [] as Sample[]]));
  try {
    for (let i = 0; i < REPEATS; i++) for (const c of contenders) samples.get(c.name)?.push(await timed(c.command, c.args, dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const wall = (name: string) => median((samples.get(name) ?? []).map((sample) => sample.wallMs));
  const cpu = (name: string) => median((samples.get(name) ?? []).flatMap((sample) => (sample.cpuMs === undefined ? [] : [sample.cpuMs])));
  const [raw] = contenders;
  console.log(`\nlisting the bundled servers' tools, start to exit (median of ${REPEATS}, interleaved; CPU: the whole process tree)`);
  console.table(
    contenders.map(({ name }) => ({
      command: name,
      "wall ms": wall(name).toFixed(0),
      "wall vs raw SDK": `${(wall(name) / wall(raw!.name)).toFixed(2)}x`,
      "CPU ms": cpu(name).toFixed(0),
      "CPU vs raw SDK": `${(cpu(name) / cpu(raw!.name)).toFixed(2)}x`,
    })),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
