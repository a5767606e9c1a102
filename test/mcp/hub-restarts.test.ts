import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ServerState } from "../../src/mcp/types.js";
import { restartLine } from "../../src/cli/render/server-restart.js";
import { hubPerTest } from "./hub-per-test.js";
import { fixture } from "./processes.js";
import { textOf, watchRestarts as watch } from "./restart-lines.js";

const hubs = hubPerTest("toolbridge-restarts-");
/** Restarts wait 10 ms, 20 ms, ... here: the rule (doubling, bounded by maxRestarts) is the same as with 1 s. */
const FAST = { restartBackoffMs: 10 };

function fresh(): string {
  return mkdtempSync(join(hubs.dir, "run-"));
}

describe("a server that exits mid-call", () => {
  it("retries a read-only tool's call once on the restarted server, which answers", async () => {
    const hub = await hubs.connect({ fs: fixture("exits-mid-call.mjs", fresh()) }, FAST);
    const firstPid = hub.servers()[0]?.pid;
    const { lines } = watch(hub);
    const result = await hub.callTool("read", {});
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/^read done by \d+$/);
    expect(textOf(result)).not.toBe(`read done by ${firstPid}`);
    // Called twice in all: the call that met the exit, and its one retry.
    expect(textOf(await hub.callTool("runs", {}))).toBe("read,read");
    expect(hub.servers()[0]).toMatchObject({ status: "connected", restarts: 1, dropped: "exit 1" });
    expect(lines).toEqual(["server fs restarted (exit 1), tools back"]);
  });

  it("does not call a write tool again: the model reads that the server restarted and the call may have run", async () => {
    const hub = await hubs.connect({ fs: fixture("exits-mid-call.mjs", fresh()) }, FAST);
    const result = await hub.callTool("write", {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('server "fs" restarted (exit 1; stderr: exiting during write) during this call of write: it may or may not have run. Check before calling it again.');
    expect(textOf(await hub.callTool("runs", {}))).toBe("write");
    // The tools are offered again, from the restarted server.
    expect(hub.tools().map((tool) => tool.name)).toEqual(["read", "write", "runs"]);
  });

  it("restarts a server that exits between calls without waiting for the next call", async () => {
    const hub = await hubs.connect({ toy: fixture("toy-server.mjs") }, FAST);
    const firstPid = hub.servers()[0]?.pid as number;
    const back = new Promise<ServerState>((resolve) =>
      hub.on((event) => (event.type === "server-status" && event.state.status === "connected" ? resolve(event.state) : undefined)),
    );
    process.kill(firstPid, "SIGKILL");
    const state = await back;
    expect(state).toMatchObject({ restarts: 1, dropped: "SIGKILL" });
    expect(state.pid).not.toBe(firstPid);
    expect(restartLine(state)?.text).toBe("server toy restarted (SIGKILL), tools back");
  });
});

describe("a server that dies for good", () => {
  it("is tried maxRestarts times, then left down with its tools gone and one line saying so", async () => {
    const marker = join(fresh(), "refuse");
    const hub = await hubs.connect({ toy: { ...fixture("toy-server.mjs", "--fail-start-if-exists", marker), maxRestarts: 2 } }, FAST);
    const { states, lines } = watch(hub);
    writeFileSync(marker, "");
    const result = await hub.callTool("crash", {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^server "toy" stopped \(exit 3\) during this call of crash, which may or may not have run, and is down: .*refusing to start.*\(gave up after 2 tries to restart it\)$/);
    expect(hub.servers()[0]).toMatchObject({ status: "failed", restarts: 2, toolCount: 0 });
    expect(hub.servers()[0]?.restarting).toBeUndefined();
    expect(hub.tools()).toEqual([]);
    expect(states.filter((state) => state.status === "connecting")).toHaveLength(2);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^server toy is down \(exit 3\): .*refusing to start.*gave up after 2 tries to restart it\)$/);
    expect(lines[0]).not.toContain("\n");
  });

  it("is not restarted with maxRestarts 0", async () => {
    const hub = await hubs.connect({ toy: { ...fixture("toy-server.mjs"), maxRestarts: 0 } }, FAST);
    const result = await hub.callTool("crash", {});
    expect(textOf(result)).toMatch(/^server "toy" stopped \(exit 3\) during this call of crash, which may or may not have run, and is down:/);
    expect(hub.servers()[0]).toMatchObject({ status: "failed", restarts: 0 });
  });
});
