/**
 * `toolbridge tools` from start to exit, on the bundled servers (time and math), against a
 * raw SDK script that connects the same two servers in parallel, lists their tools, prints
 * them and closes: what a person waits for at the shell prompt. Each runs as a fresh
 * process, the two alternating; median of REPEATS. Goal: within 1.2x of the raw script.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const REPEATS = 7;
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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timed(command: string, args: string[], cwd: string): Promise<number> {
  const started = performance.now();
  await exec(command, args, { cwd, env: { ...process.env, NO_COLOR: "1", HOME: cwd, XDG_CONFIG_HOME: cwd, XDG_STATE_HOME: cwd } });
  return performance.now() - started;
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
  const times = new Map(contenders.map((c) => [c.name, [] as number[]]));
  try {
    for (let i = 0; i < REPEATS; i++) for (const c of contenders) times.get(c.name)?.push(await timed(c.command, c.args, dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const base = median(times.get("raw SDK script") ?? []);
  console.log(`\nlisting the bundled servers' tools, start to exit (median of ${REPEATS})`);
  console.table(contenders.map(({ name }) => ({ command: name, "ms": median(times.get(name) ?? []).toFixed(0), "vs raw SDK": `${(median(times.get(name) ?? []) / base).toFixed(2)}x` })));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run();
