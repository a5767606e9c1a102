// HTTP servers that refuse the server/discover probe (2026-07-28) in ways the SDK does not fall back from,
// and a server whose Host allow-list refuses us: written by hand, as such servers answer.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { Hub } from "../../src/mcp/hub.js";
import { readBody } from "../support/read-body.js";

let dir: string;
const cleanups: (() => Promise<void>)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbridge-probe-"));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

type Handler = (message: { id?: unknown; method?: string; params?: { protocolVersion?: string } }, res: ServerResponse, req: IncomingMessage) => void;

async function serve(handle: Handler): Promise<{ url: string; methods: string[] }> {
  const methods: string[] = [];
  const server = createServer(async (req, res) => {
    if (req.method !== "POST") return void res.writeHead(405).end();
    const message = JSON.parse(await readBody(req)) as Parameters<Handler>[0];
    if (message.method) methods.push(message.method);
    handle(message, res, req);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, methods };
}

const reply = (res: ServerResponse, id: unknown, result: object): void =>
  void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, result }));

async function connect(url: string): Promise<Hub> {
  const hub = await Hub.connect({ remote: { url } }, { stderrLogFile: join(dir, "log"), defaultStartupTimeoutMs: 10_000 });
  cleanups.push(() => hub.close());
  return hub;
}

it("asks a 2025 server that answers the server/discover probe with HTTP 500 with initialize, and connects", async () => {
  // As @cyanheads/git-mcp-server 2.15.3 does: its router throws on a method it does not know.
  const { url, methods } = await serve((message, res) => {
    if (message.method === "server/discover") return void res.writeHead(500, { "content-type": "text/plain" }).end("Internal Server Error");
    if (message.method === "initialize") return reply(res, message.id, { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "git", version: "2.15.3" } });
    if (message.method === "tools/list") return reply(res, message.id, { tools: [{ name: "git_status", inputSchema: { type: "object" } }] });
    res.writeHead(202).end();
  });
  const hub = await connect(url);
  expect(hub.servers()[0]).toMatchObject({ status: "connected", toolCount: 1, protocolVersion: "2025-11-25" });
  expect(methods.slice(0, 2)).toEqual(["server/discover", "initialize"]);
});

it("reports a server whose Host allow-list refuses it (403) with its status and words, and no talk of authentication", async () => {
  // The SDK's allowedHosts check (DNS-rebinding protection) as it answers.
  const { url } = await serve((_message, res, req) => {
    res.writeHead(403, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: `Invalid Host: ${req.headers.host}` }, id: null }));
  });
  const hub = await connect(url);
  const error = hub.servers()[0]?.error ?? "";
  expect(hub.servers()[0]?.status).toBe("failed");
  expect(error).toMatch(/^cannot connect to http:\/\/127\.0\.0\.1:\d+\/mcp: HTTP 403: .*Invalid Host: 127\.0\.0\.1:\d+/);
  expect(error).not.toMatch(/authentication|headers/i);
});

it("still suggests credentials for a 401 from a server that offers no OAuth", async () => {
  const { url } = await serve((_message, res) => void res.writeHead(401, { "content-type": "text/plain" }).end("token required"));
  const hub = await connect(url);
  expect(hub.servers()[0]?.error).toMatch(/^authentication required \(HTTP 401: .*token required\).*set "headers"/);
});
