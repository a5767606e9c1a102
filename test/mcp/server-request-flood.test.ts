// A hostile server that sends a thousand requests at once (sampling, elicitation): every one is answered, and the
// answers pile up no listeners on the way out (Node's MaxListenersExceededWarning would print into the chat).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { ServerConfig } from "../../src/config/schema.js";
import { Hub, type HubOptions } from "../../src/mcp/hub.js";
import { ANSWERS_AT_ONCE } from "../../src/mcp/transport/answer-posts.js";
import { samplingRejected } from "../../src/mcp/client-features.js";
import { readBody } from "../support/read-body.js";

const FLOOD = 1000;

let dir: string;
let warnings: string[];
const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
const cleanups: (() => Promise<void>)[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbridge-flood-"));
  warnings = [];
  process.on("warning", onWarning);
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  process.off("warning", onWarning);
  rmSync(dir, { recursive: true, force: true });
});

/** Handlers that answer at once, as the chat does once its queue of questions is full: declined. */
const declining: HubOptions = {
  onElicitation: async () => ({ action: "decline" }),
  onSampling: async () => {
    throw samplingRejected();
  },
};

/** The requests of the flood: a sampling and an elicitation request each time. */
function floodRequests(count: number): object[] {
  return Array.from({ length: count }, (_, k) => [
    { jsonrpc: "2.0", id: `s${k}`, method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 } },
    { jsonrpc: "2.0", id: `e${k}`, method: "elicitation/create", params: { message: "name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } } },
  ]).flat();
}

/** Connects to the flooding server, calls its tool: every request was answered, and Node warned of no listeners piled up. */
async function expectFloodAnswered(server: ServerConfig, count: number): Promise<void> {
  const hub = await Hub.connect({ flood: server }, { ...declining, stderrLogFile: join(dir, "log") });
  cleanups.push(() => hub.close());
  expect(hub.servers()[0]?.status).toBe("connected");
  const result = await hub.callTool("flood", {});
  expect(result.content).toEqual([{ type: "text", text: `${2 * count} answers` }]);
  await new Promise((resolve) => setImmediate(resolve));
  expect(warnings.filter((warning) => warning.startsWith("MaxListenersExceededWarning"))).toEqual([]);
}

// Over stdio: the flood in one go, then stdin left unread a while, so that the answers wait for the pipe to drain.
const STDIO_SERVER = `
const flood = ${JSON.stringify(floodRequests(FLOOD))};
const send = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
let buffer = "";
let answers = 0;
let call;
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let at;
  while ((at = buffer.indexOf("\\n")) !== -1) {
    const line = buffer.slice(0, at);
    buffer = buffer.slice(at + 1);
    if (line.trim()) handle(JSON.parse(line));
  }
});
function handle(message) {
  const { id, method, params } = message;
  if (method === "initialize") return send({ jsonrpc: "2.0", id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "flood", version: "1" } } });
  if (method === "tools/list") return send({ jsonrpc: "2.0", id, result: { tools: [{ name: "flood", inputSchema: { type: "object" } }] } });
  if (method === "tools/call") {
    call = id;
    for (const request of flood) send(request);
    process.stdin.pause();
    setTimeout(() => process.stdin.resume(), 500);
    return;
  }
  if (method === undefined && ++answers === flood.length) send({ jsonrpc: "2.0", id: call, result: { content: [{ type: "text", text: answers + " answers" }] } });
  else if (method !== undefined && id !== undefined) send({ jsonrpc: "2.0", id, result: {} });
}
`;

it("answers a stdio server's flood of requests while it does not read, with no listener piled up per answer", async () => {
  writeFileSync(join(dir, "flood.mjs"), STDIO_SERVER);
  await expectFloodAnswered({ command: process.execPath, args: [join(dir, "flood.mjs")], protocol: "2025-11-25" }, FLOOD);
}, 180_000);

/**
 * Over Streamable HTTP: a hand-written server that answers the tool call with an event stream on which it sends the
 * flood at once, each answer coming back as a POST of its own; the tool's result follows the last answer. Idle
 * connections are closed after Node's 5 s: an answer written to one the server is closing just then must be posted
 * again. A server that `drops` goes further: it closes the connection under the first arrival of each answer, before
 * it answers, as a keep-alive close would, and counts what arrived.
 */
async function startHttpFloodServer(count: number, drops = false): Promise<{ url: string; arrivals: Map<string, number>; connections(): number; close(): Promise<void> }> {
  const flood = floodRequests(count);
  const arrivals = new Map<string, number>();
  const answered = new Set<unknown>();
  let stream: { res: ServerResponse; id: unknown } | undefined;
  const server = createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    void readBody(req).then((body) => {
      const message = JSON.parse(body) as { id?: unknown; method?: string; params?: { protocolVersion?: string } };
      const { id, method } = message;
      const key = method ?? `answer ${String(id)}`;
      const arrived = (arrivals.get(key) ?? 0) + 1;
      arrivals.set(key, arrived);
      if (drops && arrived === 1 && (method === undefined || method === "tools/call")) {
        req.socket.destroy();
        return;
      }
      const json = (result: unknown) => res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "flood" }).end(JSON.stringify({ jsonrpc: "2.0", id, result }));
      if (method === "initialize") return json({ protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "flood", version: "1" } });
      if (method === "tools/list") return json({ tools: [{ name: "flood", inputSchema: { type: "object" } }] });
      if (method === "tools/call") {
        stream = { res, id };
        res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "flood" });
        res.write(flood.map((request) => `event: message\ndata: ${JSON.stringify(request)}\n\n`).join(""));
        return;
      }
      res.writeHead(202).end();
      if (method !== undefined || answered.has(id)) return;
      answered.add(id);
      if (answered.size === flood.length && stream) {
        stream.res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: stream.id, result: { content: [{ type: "text", text: `${answered.size} answers` }] } })}\n\n`);
      }
    });
  });
  let connections = 0;
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    connections: () => connections,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    arrivals,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

it("answers a Streamable HTTP server's flood of requests on one event stream over a few connections, with no listener piled up per answer", async () => {
  const server = await startHttpFloodServer(FLOOD);
  cleanups.push(() => server.close());
  await expectFloodAnswered({ url: server.url, protocol: "2025-11-25" }, FLOOD);
  // A few connections carry the answers (one per answer made 2,001), besides the few of the session's other requests.
  expect(server.connections()).toBeLessThanOrEqual(ANSWERS_AT_ONCE + 10);
}, 180_000);

it("posts an answer once more when the server closes its connection before answering it, and a tool call not", async () => {
  const server = await startHttpFloodServer(20, true);
  cleanups.push(() => server.close());
  const hub = await Hub.connect({ flood: { url: server.url, protocol: "2025-11-25" } }, { ...declining, stderrLogFile: join(dir, "log") });
  cleanups.push(() => hub.close());
  // The call whose connection was cut is not sent again: the hub says it may or may not have run.
  const cut = await hub.callTool("flood", {});
  expect(cut.isError).toBe(true);
  expect(server.arrivals.get("tools/call")).toBe(1);
  const result = await hub.callTool("flood", {});
  expect(result.content).toEqual([{ type: "text", text: "40 answers" }]);
  expect(server.arrivals.get("tools/call")).toBe(2);
  expect([...server.arrivals].filter(([key]) => key.startsWith("answer ")).every(([, arrived]) => arrived === 2)).toBe(true);
});
