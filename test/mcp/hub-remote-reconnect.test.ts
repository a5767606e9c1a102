import { afterEach, describe, expect, it } from "vitest";
import type { ServerState } from "../../src/mcp/types.js";
import { restartLine } from "../../src/cli/render/server-restart.js";
import { startRestartableServer, type RestartableKind, type RestartableServer } from "../support/restartable-mcp-http.js";
import { hubPerTest } from "./hub-per-test.js";
import { textOf, watchRestarts as watch } from "./restart-lines.js";

/**
 * A remote server whose connection drops (stopped and started again on the same port, as a deploy or a crash does,
 * every session forgotten) is reconnected as a stdio server that exits is restarted: with backoff, bounded by
 * maxRestarts, its tools offered again, the read-only call that met the drop made once more, and one line.
 */

const hubs = hubPerTest("toolbridge-remote-reconnect-");
/** Reconnections wait 5-10 ms, 10-20 ms, ... here: the rule (doubling, bounded by maxRestarts) is the same as with 1 s. */
const FAST = { restartBackoffMs: 10 };
let servers: RestartableServer[] = [];
afterEach(async () => {
  for (const server of servers) await server.stop();
  servers = [];
});

async function serve(kind: RestartableKind, options: { dropOn?: string } = {}): Promise<RestartableServer> {
  const server = await startRestartableServer(kind, options);
  servers.push(server);
  return server;
}

/** How a stopped server's drop is met: the pooled connection closed under the request, or (once the client saw it close) refused. */
const DOWN = /(the connection was cut|connection refused)/;

/** The session a call's answer names ("read run=2 session=run2-abc"). */
function sessionOf(text: string): string | undefined {
  return /session=(\S+)/.exec(text)?.[1];
}

describe.each(["streamable", "sse", "modern"] as const)("a %s server restarted on the same port", (kind) => {
  it("between calls: is reconnected in a new session, its tools offered again, and the read-only call answers", async () => {
    const server = await serve(kind);
    const hub = await hubs.connect({ remote: { url: server.url } }, FAST);
    const { lines } = watch(hub);
    const first = textOf(await hub.callTool("read", {}));
    expect(first).toMatch(/^read run=1 /);
    await server.stop();
    await server.start();
    const again = await hub.callTool("read", {});
    expect(again.isError).toBeFalsy();
    expect(textOf(again)).toMatch(/^read run=2 /);
    if (kind !== "modern") expect(sessionOf(textOf(again))).not.toBe(sessionOf(first));
    expect(hub.servers()[0]).toMatchObject({ status: "connected", restarts: 1 });
    expect(hub.tools().map((tool) => tool.name)).toEqual(["read", "write", "hold-read", "hold-write"]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^server remote reconnected \(.+\), tools back$/);
  });

  it("during a read-only call: the call is made once more on the server come back, and answers", async () => {
    const server = await serve(kind);
    const hub = await hubs.connect({ remote: { url: server.url } }, FAST);
    const { lines } = watch(hub);
    const held = server.arrived("hold-read");
    const call = hub.callTool("hold-read", {});
    await held;
    const retried = server.arrived("hold-read");
    // Started again before the hub hears of the drop: the reconnection's first try meets it.
    await server.stop();
    await server.start();
    await retried;
    server.release();
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/^hold-read run=2 /);
    expect(server.calls.filter((line) => line.startsWith("hold-read"))).toHaveLength(2);
    expect(lines).toEqual([expect.stringMatching(/^server remote reconnected \(.+\), tools back$/)]);
  });

  it("during a call that is not read-only: the call is not made again, and the model reads that it may have run", async () => {
    const server = await serve(kind);
    const hub = await hubs.connect({ remote: { url: server.url } }, FAST);
    const held = server.arrived("hold-write");
    const call = hub.callTool("hold-write", {});
    await held;
    await server.stop();
    await server.start();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^server "remote" reconnected \(.+\) during this call of hold-write: it may or may not have run\. Check before calling it again\.$/);
    expect(server.calls.filter((line) => line.startsWith("hold-write"))).toHaveLength(1);
    // Still usable, in the new session.
    expect(textOf(await hub.callTool("write", {}))).toMatch(/^write run=2 /);
  });
});

describe.each(["streamable", "sse"] as const)("a %s server restarted while nothing is asked of it", (kind) => {
  it("is noticed by its event stream's end and reconnected before the next call", async () => {
    const server = await serve(kind);
    const hub = await hubs.connect({ remote: { url: server.url } }, FAST);
    const back = new Promise<ServerState>((resolve) =>
      hub.on((event) => (event.type === "server-status" && event.state.status === "connected" ? resolve(event.state) : undefined)),
    );
    await server.stop();
    await server.start();
    const state = await back;
    expect(state).toMatchObject({ restarts: 1, dropped: kind === "sse" ? "the event stream ended" : "the session ended (HTTP 404)" });
    expect(restartLine(state)?.text).toMatch(/^server remote reconnected \(.+\), tools back$/);
    expect(server.calls).toEqual([]);
  });
});

describe("a remote server that is down for a while", () => {
  it("is tried again with backoff until it is back, and the read-only call that met the drop answers", async () => {
    const server = await serve("streamable");
    const hub = await hubs.connect({ remote: { url: server.url, maxRestarts: 5 } }, FAST);
    const { states, lines } = watch(hub);
    await hub.callTool("read", {});
    await server.stop();
    // Back once the first reconnection has failed (connection refused).
    let failedOnce = false;
    const back = new Promise<void>((resolve) =>
      hub.on((event) => {
        if (event.type !== "server-status" || event.state.status !== "failed" || event.state.restarts < 1 || failedOnce) return;
        failedOnce = true;
        void server.start().then(resolve);
      }),
    );
    const result = await hub.callTool("read", {});
    await back;
    expect(textOf(result)).toMatch(/^read run=2 /);
    // The first reconnection met the server down; the next (or, on a slow machine, a later one) found it back.
    const tries = states.filter((state) => state.status === "connecting").length;
    expect(tries).toBeGreaterThanOrEqual(2);
    expect(hub.servers()[0]).toMatchObject({ status: "connected", restarts: tries, dropped: expect.stringMatching(DOWN) });
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^server remote reconnected \\(${DOWN.source}\\), tools back$`))]);
  });
});

describe("a hostile remote server", () => {
  it("that drops every call is reconnected maxRestarts times, then left down with one line", async () => {
    const server = await serve("streamable", { dropOn: "read" });
    const hub = await hubs.connect({ remote: { url: server.url, maxRestarts: 3 } }, FAST);
    const { states, lines } = watch(hub);
    // Each call that meets the drop is made once more after the reconnection (it is read-only), and meets it again.
    for (let i = 0; i < 3; i++) await hub.callTool("read", {}).catch(() => undefined);
    const last = await hub.callTool("read", {}).catch((error: Error) => error.message);
    expect(last).toMatch(/unknown tool "read"|is unavailable/);
    expect(states.filter((state) => state.status === "connecting")).toHaveLength(3);
    expect(hub.servers()[0]).toMatchObject({ status: "failed", restarts: 3, toolCount: 0 });
    expect(hub.tools()).toEqual([]);
    // A line for each time it came back, and one when it was given up.
    expect(lines.slice(0, -1)).toEqual(Array(3).fill("server remote reconnected (the connection was cut), tools back"));
    expect(lines.at(-1)).toMatch(/^server remote is down \(the connection was cut\): .*\(gave up after 3 tries to reconnect it\)$/);
  });

  it("that never comes back is tried maxRestarts times with backoff, and the call reads that the server is down", async () => {
    const server = await serve("streamable");
    const hub = await hubs.connect({ remote: { url: server.url, maxRestarts: 2 } }, FAST);
    const { states, lines } = watch(hub);
    await hub.callTool("read", {});
    await server.stop();
    const result = await hub.callTool("write", {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^server "remote" dropped \((the connection was cut|connection refused)\) during this call of write, which may or may not have run, and is down: cannot connect to http:\/\/127\.0\.0\.1:\d+\/mcp: .*ECONNREFUSED.* \(gave up after 2 tries to reconnect it\)$/,
    );
    expect(states.filter((state) => state.status === "connecting")).toHaveLength(2);
    expect(lines).toEqual([expect.stringMatching(/^server remote is down \((the connection was cut|connection refused)\): cannot connect to .*ECONNREFUSED.*\(gave up after 2 tries to reconnect it\)$/)]);
    expect(lines[0]).not.toContain("\n");
  });
});
