import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Hub } from "../../src/mcp/hub.js";
import { rejection } from "./hub-error.js";
import type { HubEvent } from "../../src/mcp/types.js";
import { freePort } from "../support/free-port.js";
import { isAlive } from "../support/processes.js";
import { hubPerTest } from "./hub-per-test.js";
import { fixture, waitUntil } from "./processes.js";

const hubs = hubPerTest("toolbridge-faults-");
const { dir } = hubs;
const logFile = hubs.stderrLogFile;
/** The hub of the running test (closed after it by `hubPerTest`). */
let hub: Hub | undefined;

function state(name: string) {
  const found = hub?.servers().find((s) => s.name === name);
  if (!found) throw new Error(`no server ${name}`);
  return found;
}

describe("servers that fail to start", () => {
  it("reports a missing command as failed, in one line, and still connects the others", async () => {
    hub = await hubs.connect(
      {
        missing: { command: "toolbridge-no-such-command-xyz" },
        good: fixture("toy-server.mjs"),
      },
    );
    expect(state("missing")).toMatchObject({ status: "failed", error: "command not found: toolbridge-no-such-command-xyz" });
    expect(state("good").status).toBe("connected");
    expect(hub.tools().some((t) => t.name === "pid")).toBe(true);
  });

  it("reports a server that exits at once with the tail of its stderr", async () => {
    hub = await hubs.connect({ dies: fixture("exit-at-once.mjs") });
    const dies = state("dies");
    expect(dies.status).toBe("failed");
    expect(dies.error).toContain("exited during startup");
    expect(dies.error).toContain("fatal: missing API_TOKEN");
    expect(dies.error).not.toContain("\n");
    expect(dies.stderrTail).toEqual(["fatal: missing API_TOKEN"]);
  });

  it("fails a server that hangs on initialize at its startup timeout without holding up a good one", async () => {
    const started = Date.now();
    hub = await hubs.connect(
      {
        hangs: { ...fixture("hang-on-initialize.mjs"), startupTimeoutMs: 800 },
        good: fixture("toy-server.mjs"),
      },
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(state("hangs")).toMatchObject({ status: "failed" });
    expect(state("hangs").error).toMatch(/did not finish initialize within 800 ms; stderr: warming up a very slow cache/);
    expect(state("good").status).toBe("connected");
  });

  it("applies the hub's default startup timeout when the server sets none", async () => {
    hub = await hubs.connect({ hangs: fixture("hang-on-initialize.mjs") }, { defaultStartupTimeoutMs: 500 });
    expect(state("hangs").error).toContain("within 500 ms");
  });

  it("fails a server that writes garbage on stdout quickly, naming what it wrote", async () => {
    const started = Date.now();
    hub = await hubs.connect({ noisy: fixture("garbage-stdout.mjs") });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(state("noisy").status).toBe("failed");
    expect(state("noisy").error).toContain("not JSON-RPC on stdout");
    expect(state("noisy").error).toContain("Server sta");
  });

  it("tolerates one banner line on stdout before a server speaks JSON-RPC", async () => {
    hub = await hubs.connect({ banner: fixture("banner-then-mcp.mjs") });
    expect(state("banner").status).toBe("connected");
    const result = await hub.callTool("hello", {});
    expect(result.content).toEqual([{ type: "text", text: "hello" }]);
  });

  it("reports an unreachable URL as failed", async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    hub = await hubs.connect({ remote: { url } });
    expect(state("remote").status).toBe("failed");
    expect(state("remote").error).toBe(`cannot connect to ${url}: fetch failed: ECONNREFUSED`);
  });

  it("sends the config's headers, and after a 4xx to POST tries legacy SSE with them too", async () => {
    const seen: { method: string; token: string | undefined }[] = [];
    const server = createServer((request, response) => {
      seen.push({ method: request.method ?? "", token: request.headers["x-token"] as string | undefined });
      response.writeHead(request.method === "POST" ? 405 : 404).end("no");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      hub = await hubs.connect({ old: { url: `http://127.0.0.1:${port}/mcp`, headers: { "X-Token": "secret" } } });
      expect(state("old").status).toBe("failed");
      expect(state("old").error).toBe(`cannot connect to http://127.0.0.1:${port}/mcp: Streamable HTTP: HTTP 405: Error POSTing to endpoint: no; legacy SSE: HTTP 404: Non-200 status code (404)`);
      // The server/discover probe, initialize, then the legacy transport's event stream.
      expect(seen).toEqual([
        { method: "POST", token: "secret" },
        { method: "POST", token: "secret" },
        { method: "GET", token: "secret" },
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("does not fall back to SSE when the server fails with a 5xx", async () => {
    const requests: string[] = [];
    const server = createServer((request, response) => {
      requests.push(request.method ?? "");
      response.writeHead(500).end("boom");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      hub = await hubs.connect({ broken: { url: `http://127.0.0.1:${port}/mcp` } });
      expect(state("broken").status).toBe("failed");
      expect(state("broken").error).toBe(`cannot connect to http://127.0.0.1:${port}/mcp: HTTP 500: Error POSTing to endpoint: boom`);
      // The era probe's 500 is answered with initialize (as any refusal of the probe is); its 500 ends it: no GET of SSE.
      expect(requests).toEqual(["POST", "POST"]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("skips a disabled server and refuses calls to it", async () => {
    hub = await hubs.connect({ off: { ...fixture("toy-server.mjs"), disabled: true } });
    expect(state("off").status).toBe("disabled");
    expect(hub.tools()).toEqual([]);
    expect((await rejection(hub.readResource("toy://toy/info", "off"))).code).toBe("server-unavailable");
  });

  it("writes servers' stderr to the log file, tagged with the server", async () => {
    hub = await hubs.connect({ dies: fixture("exit-at-once.mjs") });
    await hub.close();
    expect(readFileSync(logFile, "utf8")).toMatch(/\[dies\] fatal: missing API_TOKEN/);
  });
});

describe("servers that die while in use", () => {
  it("ends a call in flight as soon as the server is killed, telling the model it may have run", async () => {
    hub = await hubs.connect({ toy: { ...fixture("toy-server.mjs"), maxRestarts: 0 } });
    const pid = state("toy").pid as number;
    const call = hub.callTool("sleep", { ms: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const killedAt = Date.now();
    process.kill(pid, "SIGKILL");
    const result = await call;
    expect(Date.now() - killedAt).toBeLessThan(2000);
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(/^server "toy" stopped \(SIGKILL\) during this call of sleep, which may or may not have run, and is down: /);
    expect(state("toy").status).toBe("failed");
  });

  it("ends a call whose tool makes the server exit, with the server's last stderr line", async () => {
    hub = await hubs.connect({ toy: fixture("toy-server.mjs") }, { restartBackoffMs: 10 });
    const result = await hub.callTool("crash", {});
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toContain("restarted (exit 3; stderr: crashing on purpose) during this call of crash");
  });

  it("restarts a dead stdio server and reports the restart", async () => {
    hub = await hubs.connect({ toy: fixture("toy-server.mjs") }, { restartBackoffMs: 10 });
    const firstPid = state("toy").pid as number;
    const statuses: string[] = [];
    hub.on((event: HubEvent) => {
      if (event.type === "server-status") statuses.push(event.state.status);
    });
    await hub.callTool("crash", {});
    const result = await hub.callTool("pid", {});
    const secondPid = Number((result.content[0] as { text: string }).text);
    expect(secondPid).not.toBe(firstPid);
    expect(state("toy")).toMatchObject({ status: "connected", restarts: 1, pid: secondPid });
    expect(statuses).toEqual(["failed", "connecting", "connected"]);
    expect(isAlive(firstPid)).toBe(false);
  });

  it("renews subscriptions after a restart within the request timeout, so a waiting call goes on", async () => {
    const marker = join(dir, "renew-first-run");
    hub = await hubs.connect(
      {
        renew: {
          ...fixture("hang-on-renewed-subscribe.mjs", marker),
          toolTimeoutMs: 500,
        },
      },
    );
    try {
      await hub.subscribe("hang://a");
      await hub.subscribe("hang://b");
      await hub.callTool("crash", {});
      // Without a bound the SDK's 60 s default would hold this call far past the test's timeout.
      const result = await hub.callTool("pid", {});
      expect(Number((result.content[0] as { text: string }).text)).toBe(state("renew").pid);
      const log = readFileSync(logFile, "utf8");
      expect(log).toMatch(/\[renew\] could not renew the subscription to hang:\/\/a: .*timed out/i);
      expect(log).toMatch(/\[renew\] could not renew the subscription to hang:\/\/b: .*timed out/i);
    } finally {
      rmSync(marker, { force: true });
    }
  }, 10_000);

  it("bounds a subscription request by the server's toolTimeoutMs", async () => {
    const marker = join(dir, "subscribe-hangs");
    writeFileSync(marker, "");
    try {
      hub = await hubs.connect(
        {
          renew: {
            ...fixture("hang-on-renewed-subscribe.mjs", marker),
            toolTimeoutMs: 300,
          },
        },
      );
      const error = await rejection(hub.subscribe("hang://a"));
      expect(error.code).toBe("timeout");
      expect(error.message).toBe('resources/subscribe hang://a on server "renew" timed out after 300 ms without progress');
    } finally {
      rmSync(marker, { force: true });
    }
  });

  it("shows only the current process's stderr when a restarted server fails again", async () => {
    hub = await hubs.connect({ toy: fixture("toy-server.mjs") }, { restartBackoffMs: 10 });
    await hub.callTool("crash", {});
    await hub.callTool("pid", {});
    const again = (await hub.callTool("crash", {})).content[0] as { text: string };
    expect(again.text.match(/crashing on purpose/g)).toHaveLength(1);
    expect(state("toy")).toMatchObject({ status: "connected", restarts: 2 });
  });

  it("gives up after maxRestarts failed restarts and says so", async () => {
    const marker = join(dir, "refuse-to-start");
    hub = await hubs.connect({ toy: { ...fixture("toy-server.mjs", "--fail-start-if-exists", marker), maxRestarts: 3 } }, { restartBackoffMs: 10 });
    writeFileSync(marker, "");
    try {
      const result = (await hub.callTool("crash", {})).content[0] as { text: string };
      expect(result.text).toContain("refusing to start");
      expect(result.text).toContain("gave up after 3 tries to restart it");
      expect(state("toy").restarts).toBe(3);
      // Given up: its tools are gone, and a call fails at once naming the server instead of trying again.
      const error = await rejection(hub.callTool("pid", {}));
      expect(error.code).toBe("unknown-tool");
      expect(error.message).toContain("servers not connected: toy");
      expect(state("toy").restarts).toBe(3);
    } finally {
      rmSync(marker, { force: true });
    }
  });
});

describe("servers with odd tool lists", () => {
  it("exposes a tool a server lists twice once, as first listed, reachable by its alias too", async () => {
    hub = await hubs.connect(
      { twice: fixture("lists-a-tool-twice.mjs") },
    );
    expect(hub.tools().map((t) => [t.name, t.description])).toEqual([
      ["echo", "first listing"],
      ["other", "another tool"],
    ]);
    expect((await hub.callTool("twice__echo", {})).content).toEqual([{ type: "text", text: "echo" }]);
  });
});

describe("close()", () => {
  it("ends every child and leaves no process behind", async () => {
    hub = await hubs.connect({ a: fixture("toy-server.mjs", "--name", "a"), b: fixture("toy-server.mjs", "--name", "b") });
    const pids = hub.servers().map((s) => s.pid as number);
    expect(pids.every(isAlive)).toBe(true);
    await hub.close();
    expect(pids.some(isAlive)).toBe(false);
    expect(hub.servers().map((s) => s.status)).toEqual(["closed", "closed"]);
  });

  it("kills a server that ignores SIGTERM and its closed stdin", async () => {
    hub = await hubs.connect({ stubborn: fixture("ignores-sigterm.mjs") });
    const pid = state("stubborn").pid as number;
    await hub.close();
    await waitUntil(() => !isAlive(pid), 2000, "the stubborn server to die");
    expect(readFileSync(logFile, "utf8")).toContain("[stubborn] ignoring SIGTERM");
  }, 15_000);

  it("offers closeSync for process exit handlers, which SIGKILLs every child at once", async () => {
    hub = await hubs.connect({ stubborn: fixture("ignores-sigterm.mjs") });
    const pid = state("stubborn").pid as number;
    hub.closeSync();
    await waitUntil(() => !isAlive(pid), 2000, "the stubborn server to die");
  });

  it("is idempotent and makes later calls fail with code closed", async () => {
    hub = await hubs.connect({ toy: fixture("toy-server.mjs") });
    await Promise.all([hub.close(), hub.close()]);
    expect((await rejection(hub.callTool("pid", {}))).code).toBe("closed");
  });
});
