import { spawn } from "node:child_process";
import { request } from "node:http";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseListenAddress } from "../../src/cli/commands/serve.js";
import { urlHost } from "../../src/servers/host-check.js";
import { serveHttp, type HttpServerHandle } from "../../src/servers/http.js";
import { createTimeServer } from "../../src/servers/time/server.js";
import { isAlive } from "../support/processes.js";
import { LOOPBACK_PRELOAD } from "../mcp/processes.js";
import { CLI, connectHttpClient, startHttpServe } from "./serve-process.js";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
});

/** A raw request, so that Host and Origin can be anything (fetch will not send a forged Host). */
function post(url: string, headers: Record<string, string>, body = INITIALIZE): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("serveHttp", () => {
  let handle: HttpServerHandle;
  let port: string;

  beforeAll(async () => {
    handle = await serveHttp(createTimeServer, { port: 0 });
    port = new URL(handle.url).port;
  });

  afterAll(async () => {
    await handle.close();
  });

  it("binds 127.0.0.1 by default and reports the port it got for port 0", () => {
    expect(handle.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(Number(port)).toBeGreaterThan(0);
  });

  it("refuses a request whose Host is not this machine (DNS rebinding)", async () => {
    const response = await post(handle.url, { host: "evil.example" });
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toMatchObject({ error: { message: "Host not allowed: evil.example" } });
  });

  it("refuses a loopback Host with another port", async () => {
    expect((await post(handle.url, { host: `localhost:${Number(port) + 1}` })).status).toBe(403);
  });

  it("refuses a foreign Origin even with a good Host", async () => {
    const response = await post(handle.url, { origin: "http://evil.example" });
    expect(response.status).toBe(403);
    expect(response.body).toContain("Origin not allowed: http://evil.example");
    expect((await post(handle.url, { origin: "null" })).status).toBe(403);
  });

  it.each(["localhost", "127.0.0.1", "[::1]"])("accepts Host %s at its port and its own page's Origin", async (name) => {
    const response = await post(handle.url, { host: `${name}:${port}`, origin: `http://localhost:${port}` });
    expect(response.status).toBe(200);
    expect(response.body).toContain('"serverInfo"');
  });

  it("refuses a page on another port of this machine: another site", async () => {
    const response = await post(handle.url, { origin: "http://localhost:5173" });
    expect(response.status).toBe(403);
    expect(response.body).toContain("Origin not allowed: http://localhost:5173");
  });

  it("answers 404 outside /mcp and for an unknown session", async () => {
    expect((await post(handle.url.replace("/mcp", "/other"), {})).status).toBe(404);
    const unknown = await post(handle.url, { "mcp-session-id": "no-such-session" }, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }));
    expect(unknown.status).toBe(404);
  });

  it("answers 400 to a first request that is not initialize, and to a body that is not JSON", async () => {
    const notInitialize = await post(handle.url, {}, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }));
    expect(notInitialize.status).toBe(400);
    const garbage = await post(handle.url, {}, "{not json");
    expect(garbage.status).toBe(400);
    expect(JSON.parse(garbage.body)).toMatchObject({ error: { code: -32700 } });
  });

  it("gives each client a session and frees it when the client ends it", async () => {
    const before = handle.sessionCount();
    const first = await connectHttpClient(handle.url);
    const second = await connectHttpClient(handle.url);
    expect(handle.sessionCount()).toBe(before + 2);
    await (first.transport as StreamableHTTPClientTransport).terminateSession();
    await first.close();
    expect(handle.sessionCount()).toBe(before + 1);
    expect((await second.listTools()).tools).toHaveLength(1);
    await (second.transport as StreamableHTTPClientTransport).terminateSession();
    await second.close();
    expect(handle.sessionCount()).toBe(before);
  });
});

describe("serveHttp options", () => {
  let handle: HttpServerHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  it("accepts the extra hostnames it is given", async () => {
    handle = await serveHttp(createTimeServer, { port: 0, allowedHosts: ["mcp.internal"] });
    const { port } = new URL(handle.url);
    expect((await post(handle.url, { host: `mcp.internal:${port}` })).status).toBe(200);
    expect((await post(handle.url, { host: `other.internal:${port}` })).status).toBe(403);
  });

  it("closes a session left idle, but not one holding an open stream", async () => {
    handle = await serveHttp(createTimeServer, { port: 0, sessionIdleMs: 300 });
    // A raw initialize opens a session and, unlike the SDK client, no standing GET stream.
    expect((await post(handle.url, {})).status).toBe(200);
    expect(handle.sessionCount()).toBe(1);
    // The raw session may be gone already by the time the client has connected: only the client's stays.
    const client = await connectHttpClient(handle.url);
    for (let i = 0; i < 100 && handle.sessionCount() > 1; i++) await new Promise((r) => setTimeout(r, 50));
    expect(handle.sessionCount()).toBe(1);
    await new Promise((r) => setTimeout(r, 600));
    expect((await client.listTools()).tools).toHaveLength(1);
    await client.close();
  });

  it("closes open sessions and stops listening on close", async () => {
    handle = await serveHttp(createTimeServer, { port: 0 });
    const client = await connectHttpClient(handle.url);
    expect(handle.sessionCount()).toBe(1);
    const url = handle.url;
    await handle.close();
    handle = undefined;
    await client.close();
    await expect(post(url, {})).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe("urlHost", () => {
  it.each([
    ["::1", "[::1]"],
    ["fe80::1", "[fe80::1]"],
    ["127.0.0.1", "127.0.0.1"],
    ["localhost", "localhost"],
  ])("writes %s as %s in a URL", (host, expected) => {
    expect(urlHost(host)).toBe(expected);
  });
});

describe("parseListenAddress", () => {
  it.each([
    ["3000", { host: "127.0.0.1", port: 3000 }],
    ["0", { host: "127.0.0.1", port: 0 }],
    ["0.0.0.0:8080", { host: "0.0.0.0", port: 8080 }],
    ["localhost:1", { host: "localhost", port: 1 }],
    ["[::1]:3000", { host: "::1", port: 3000 }],
  ])("reads %s", (value, expected) => {
    expect(parseListenAddress(value)).toEqual(expected);
  });

  it.each(["", "abc", "host:", "::1:3000", "70000", "1.2.3.4:-1"])("refuses %j with an example of the right form", (value) => {
    expect(() => parseListenAddress(value)).toThrow(/Expected \[host:\]port, e\.g\. 3000/);
  });
});

describe("toolbridge serve", () => {
  it.each(["SIGTERM", "SIGINT"] as const)("shuts down cleanly on %s with a session open", async (signal) => {
    const served = await startHttpServe("math");
    const client = await connectHttpClient(served.url);
    expect((await client.listTools()).tools.length).toBe(7);
    const exit = await served.stop(signal);
    await client.close();
    expect(exit).toEqual({ code: 0, signal: null });
    expect(isAlive(served.child.pid as number)).toBe(false);
  });

  it("exits when its stdio client closes stdin, having written nothing but protocol", async () => {
    const child = spawn(process.execPath, [CLI, "serve", "time"], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const exit = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.stdin.end(`${INITIALIZE}\n`);
    expect(await exit).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ id: 1, result: { serverInfo: { name: "toolbridge-time" } } });
  });

  it("refuses a bad --http address in one line and an unknown server by name", async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, "serve", ...args], { stdio: ["ignore", "ignore", "pipe"] });
        let stderr = "";
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        child.once("exit", (code) => resolve({ code, stderr }));
      });
    const badAddress = await run(["time", "--http", "nowhere"]);
    expect(badAddress.code).not.toBe(0);
    expect(badAddress.stderr.split("\n")[0]).toMatch(/--http .*'nowhere' is invalid\. Expected \[host:\]port/);
    const unknown = await run(["weather"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr.split("\n")[0]).toMatch(/'weather' is invalid.*time, math/);
  });

  it("refuses --http off loopback without a token, and warns with one", async () => {
    const run = (args: string[], env: Record<string, string> = {}) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        // The preload keeps the listening socket on loopback whatever address the CLI asks for.
        const child = spawn(process.execPath, ["--require", LOOPBACK_PRELOAD, CLI, "serve", ...args], { stdio: ["ignore", "ignore", "pipe"], env: { PATH: process.env.PATH ?? "", ...env } });
        let stderr = "";
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes("listening on")) child.kill("SIGTERM");
        });
        child.once("exit", (code) => resolve({ code, stderr }));
      });
    const refused = await run(["time", "--http", "0.0.0.0:0"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe("toolbridge: --http 0.0.0.0: other machines can reach this address; give a bearer token with --token or TOOLBRIDGE_HTTP_TOKEN\n");
    const served = await run(["time", "--http", "0.0.0.0:0"], { TOOLBRIDGE_HTTP_TOKEN: "tb-env-token" });
    expect(served.code).toBe(0);
    expect(served.stderr).toContain("toolbridge: serving on 0.0.0.0, reachable from the network: clients must send Authorization: Bearer <token>");
    expect(served.stderr).not.toContain("tb-env-token");
  });
});

describe("serveHttp against a client that opens sessions without end", () => {
  let handle: HttpServerHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  async function openSession(url: string, headers: Record<string, string> = {}): Promise<{ status: number; id: string | null }> {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: INITIALIZE,
    });
    await response.text();
    return { status: response.status, id: response.headers.get("mcp-session-id") };
  }

  const ping = (url: string, id: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": id, "mcp-protocol-version": "2025-11-25", ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
    }).then(async (response) => (await response.text(), response.status));

  it("keeps at most maxSessions, closing the least recently used", async () => {
    handle = await serveHttp(createTimeServer, { port: 0, maxSessions: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await openSession(handle.url)).id as string);
    // The first session is used again: the second becomes the least recently used.
    expect(await ping(handle.url, ids[0] as string)).toBe(200);
    for (let i = 0; i < 2; i++) ids.push((await openSession(handle.url)).id as string);
    expect(handle.sessionCount()).toBe(3);
    expect(await ping(handle.url, ids[1] as string)).toBe(404);
    expect(await ping(handle.url, ids[2] as string)).toBe(404);
    expect(await ping(handle.url, ids[0] as string)).toBe(200);
    expect(await ping(handle.url, ids[4] as string)).toBe(200);
  });

  it("bounds the sessions by default", async () => {
    handle = await serveHttp(createTimeServer, { port: 0 });
    for (let i = 0; i < 150; i++) await openSession(handle.url);
    expect(handle.sessionCount()).toBe(100);
  });

  it("requires the bearer token it was given on every request", async () => {
    handle = await serveHttp(createTimeServer, { port: 0, token: "tb-test-token" });
    const missing = await fetch(handle.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: INITIALIZE });
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
    await missing.text();
    expect((await openSession(handle.url, { authorization: "Bearer wrong" })).status).toBe(401);
    const opened = await openSession(handle.url, { authorization: "Bearer tb-test-token" });
    expect(opened.status).toBe(200);
    expect(await ping(handle.url, opened.id as string)).toBe(401);
    expect(await ping(handle.url, opened.id as string, { authorization: "Bearer tb-test-token" })).toBe(200);
  });

  it("refuses to bind an address other machines reach without a token", async () => {
    await expect(serveHttp(createTimeServer, { host: "0.0.0.0", port: 0 })).rejects.toThrow("serving on 0.0.0.0, which other machines can reach, needs a bearer token");
  });
});
