/**
 * TEST INFRASTRUCTURE: an MCP server over HTTP on the official SDKs that can be stopped and started again on the
 * same port, as a remote server that restarts (a deploy, a crash) is: every socket cut, every session forgotten.
 * It speaks one of three ways: "streamable" (SDK 1.x, Streamable HTTP with sessions, 2025-11-25), "sse" (SDK 1.x,
 * the legacy HTTP+SSE transport) or "modern" (SDK 2.x, stateless Streamable HTTP, 2026-07-28 only). Its tools:
 *   read   (readOnlyHint) answers which run of the server and which session answered it
 *   write  (not read-only) the same
 *   hold-read, hold-write  the same, once `release()` is called or the server stops (a call under way when it drops)
 * With `dropOn` set ("streamable" and "sse" only), it cuts the socket of every tools/call of that tool instead of
 * answering: a server that keeps dropping.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer as McpServerV1 } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { McpServer, createMcpHandler } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { readBody } from "./read-body.js";

export type RestartableKind = "streamable" | "sse" | "modern";

export interface RestartableServer {
  /** The URL to configure: /mcp, or /sse for the legacy transport. */
  readonly url: string;
  /** How many times it has been started. */
  readonly runs: number;
  /** The tool calls it received, as "tool run=N session=S". */
  readonly calls: string[];
  /** Stops listening and cuts every connection; calls held are let go. */
  stop(): Promise<void>;
  /** Starts again on the same port, knowing no session. */
  start(): Promise<void>;
  /** Lets held calls answer. */
  release(): void;
  /** Resolves when a call of `tool` has arrived (and is held, for hold-*). */
  arrived(tool: string): Promise<void>;
}

const TOOLS = [
  { name: "read", readOnly: true },
  { name: "write", readOnly: false },
  { name: "hold-read", readOnly: true },
  { name: "hold-write", readOnly: false },
];

export async function startRestartableServer(kind: RestartableKind, options: { dropOn?: string } = {}): Promise<RestartableServer> {
  let runs = 0;
  let port = 0;
  let http: Server | undefined;
  const calls: string[] = [];
  let held: (() => void)[] = [];
  const waiters = new Map<string, (() => void)[]>();
  const release = (): void => {
    for (const go of held) go();
    held = [];
  };
  const arrive = (tool: string): void => {
    for (const resolve of waiters.get(tool) ?? []) resolve();
    waiters.delete(tool);
  };

  /** One server's tools, answering as run `run` and the session it is given. */
  const register = (server: { registerTool: McpServerV1["registerTool"] }, run: number, session: () => string): void => {
    for (const { name, readOnly } of TOOLS) {
      server.registerTool(name, { description: `${name} something`, annotations: { readOnlyHint: readOnly } }, async () => {
        const line = `${name} run=${run} session=${session()}`;
        calls.push(line);
        if (name.startsWith("hold-")) {
          const go = new Promise<void>((resolve) => held.push(resolve));
          arrive(name);
          await go;
        } else arrive(name);
        return { content: [{ type: "text" as const, text: line }] };
      });
    }
  };

  /** What serves run `run`; `body` is a POST's, parsed (the modern server reads its own). */
  const handlerFor = (run: number): ((req: IncomingMessage, res: ServerResponse, body: unknown) => Promise<void>) => {
    if (kind === "modern") {
      const handler = toNodeHandler(
        createMcpHandler(() => {
          const server = new McpServer({ name: "restartable-modern", version: "1.0.0" });
          register(server as unknown as { registerTool: McpServerV1["registerTool"] }, run, () => "none");
          return server;
        }, { legacy: "reject" }),
      );
      return async (req, res) => handler(req, res);
    }
    if (kind === "sse") {
      const transports = new Map<string, SSEServerTransport>();
      return async (req, res, body) => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1");
        if (req.method === "GET" && url.pathname === "/sse") {
          const transport = new SSEServerTransport("/messages", res);
          transports.set(transport.sessionId, transport);
          const server = new McpServerV1({ name: "restartable-sse", version: "1.0.0" });
          register(server, run, () => transport.sessionId);
          await server.connect(transport);
          return;
        }
        const transport = transports.get(url.searchParams.get("sessionId") ?? "");
        if (req.method !== "POST" || !transport) {
          res.writeHead(404).end("no such session");
          return;
        }
        await transport.handlePostMessage(req, res, body);
      };
    }
    const transports = new Map<string, StreamableHTTPServerTransport>();
    return async (req, res, body) => {
      const id = req.headers["mcp-session-id"];
      let transport = typeof id === "string" ? transports.get(id) : undefined;
      if (typeof id === "string" && !transport) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
      if (!transport) {
        const made = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => `run${run}-${Math.random().toString(36).slice(2, 10)}`,
          onsessioninitialized: (sessionId) => void transports.set(sessionId, made),
        });
        const server = new McpServerV1({ name: "restartable-streamable", version: "1.0.0" });
        register(server, run, () => made.sessionId ?? "none");
        await server.connect(made);
        transport = made;
      }
      await transport.handleRequest(req, res, body);
    };
  };

  const start = async (): Promise<void> => {
    runs++;
    const handle = handlerFor(runs);
    const server = createServer((req, res) => {
      void (async () => {
        const body = req.method === "POST" && kind !== "modern" ? (JSON.parse(await readBody(req)) as { method?: string; params?: { name?: string } }) : undefined;
        if (options.dropOn && body?.method === "tools/call" && body.params?.name === options.dropOn) {
          calls.push(`${options.dropOn} dropped`);
          req.socket.destroy();
          return;
        }
        await handle(req, res, body);
      })().catch(() => res.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    port = (server.address() as AddressInfo).port;
    http = server;
  };

  await start();
  return {
    get url() {
      return `http://127.0.0.1:${port}/${kind === "sse" ? "sse" : "mcp"}`;
    },
    get runs() {
      return runs;
    },
    calls,
    async stop() {
      const server = http;
      http = undefined;
      if (!server) return;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      release();
      await closed;
    },
    start,
    release,
    arrived(tool) {
      return new Promise<void>((resolve) => waiters.set(tool, [...(waiters.get(tool) ?? []), resolve]));
    },
  };
}
