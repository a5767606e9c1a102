/**
 * A server's reconnect time: a stdio server (server-everything) is SIGKILLed, and the time until the hub offers
 * its tools again is measured (the drop heard, the process spawned again, initialize, the first listings).
 * Then remote servers (Streamable HTTP in both protocol eras, legacy SSE; SDK servers in this process) are stopped
 * and started again on the same port, every session forgotten, and a read-only call is made: the time until it
 * answers (the drop met, the connection ended, initialize or server/discover again, the listings, the call made
 * once more). Measured with the first restart's wait at 0 ms, so that each row is the reconnection's own cost: in
 * use the hub waits 0.5-1 s before the first one (restartBackoffMs, with jitter), which adds that much.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hub } from "../src/mcp/hub.js";
import type { ServerState } from "../src/mcp/types.js";
import { startRestartableServer, type RestartableKind } from "../test/support/restartable-mcp-http.js";
import { SERVER } from "./support/mcp-peers.js";
import { median } from "./support/median.js";

const REPEATS = 10;

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
  const rows = [row("server-everything (stdio), SIGKILLed: until its tools are offered again", samples)];
  for (const [kind, name] of [["streamable", "Streamable HTTP, 2025-11-25 (SDK 1.x)"], ["modern", "Streamable HTTP, 2026-07-28 (SDK 2.x)"], ["sse", "legacy SSE (SDK 1.x)"]] as const) {
    rows.push(row(`${name}, restarted on its port: until the call that met it answers`, await remoteSamples(kind, dir)));
  }
  console.log(`\nreconnect time (restart wait 0 ms; 0.5-1 s more by default); ${REPEATS} drops each`);
  console.table(rows);
}

function row(server: string, samples: number[]): Record<string, string> {
  return { server, "median ms": median(samples).toFixed(0), "min ms": Math.min(...samples).toFixed(0), "max ms": Math.max(...samples).toFixed(0) };
}

/** A remote server stopped and started again on its port REPEATS times, each followed by a read-only call: its time to answer. */
async function remoteSamples(kind: RestartableKind, dir: string): Promise<number[]> {
  const server = await startRestartableServer(kind);
  const hub = await Hub.connect({ remote: { url: server.url, maxRestarts: REPEATS } }, { stderrLogFile: join(dir, `${kind}.log`), restartBackoffMs: 0 });
  const samples: number[] = [];
  try {
    if (hub.servers()[0]?.status !== "connected") throw new Error(`the ${kind} server did not connect: ${hub.servers()[0]?.error}`);
    await hub.callTool("read", {});
    for (let i = 0; i < REPEATS; i++) {
      await server.stop();
      await server.start();
      const started = performance.now();
      const result = await hub.callTool("read", {});
      samples.push(performance.now() - started);
      if (result.isError || hub.servers()[0]?.restarts !== i + 1) throw new Error(`the ${kind} server's call after restart ${i + 1}: ${JSON.stringify(result.content)}`);
    }
  } finally {
    await hub.close();
    await server.stop();
  }
  return samples;
}
