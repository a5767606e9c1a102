/**
 * A server's reconnect time: a stdio server (server-everything) is SIGKILLed, and the time until the hub offers
 * its tools again is measured (the drop heard, the process spawned again, initialize, the first listings).
 * Measured with the first restart's wait at 0 ms, so that the row is the restart's own cost: in use the hub waits
 * 1 s before the first restart (restartBackoffMs), which adds that much.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hub } from "../src/mcp/hub.js";
import type { ServerState } from "../src/mcp/types.js";
import { SERVER } from "./support/mcp-peers.js";

const REPEATS = 10;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "toolbridge-bench-reconnect-"));
  // Each restart counts against maxRestarts until a request is answered: the bench asks nothing, so it allows them all.
  const hub = await Hub.connect({ everything: { ...SERVER, maxRestarts: REPEATS } }, { stderrLogFile: join(dir, "servers.log"), restartBackoffMs: 0 });
  const samples: number[] = [];
  try {
    const tools = hub.tools().length;
    if (hub.servers()[0]?.status !== "connected" || tools === 0) throw new Error(`server-everything did not connect: ${hub.servers()[0]?.error}`);
    for (let i = 0; i < REPEATS; i++) {
      const pid = hub.servers()[0]?.pid as number;
      const back = new Promise<ServerState>((resolve) => {
        const off = hub.on((event) => {
          if (event.type !== "server-status" || event.state.status !== "connected") return;
          off();
          resolve(event.state);
        });
      });
      const killed = performance.now();
      process.kill(pid, "SIGKILL");
      await back;
      if (hub.tools().length !== tools) throw new Error(`${hub.tools().length} tools offered after the restart, ${tools} before`);
      samples.push(performance.now() - killed);
      // An answered request starts the count of restarts in a row over, as in use.
      await hub.callTool("echo", { message: "x" });
    }
  } finally {
    await hub.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nreconnect time: server-everything over stdio SIGKILLed, until its tools are offered again (restart wait 0 ms; 1 s more by default); ${REPEATS} kills`);
  console.table([
    {
      server: "server-everything (stdio)",
      "median ms": median(samples).toFixed(0),
      "min ms": Math.min(...samples).toFixed(0),
      "max ms": Math.max(...samples).toFixed(0),
    },
  ]);
}
