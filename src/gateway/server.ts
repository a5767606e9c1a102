import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { hostPolicy, rejectForeignRequest, urlHost, type HostPolicy } from "../servers/host-check.js";
import { ApiKeys, ConcurrencyLimit, corsHeaders } from "./access.js";
import { handleChatCompletion, TOOL_ACTIVITY_HEADER } from "./chat-completions.js";
import { HttpError, readJsonBody, sendError, sendJson } from "./http.js";
import { createHubServer, type HubServerSource } from "./hub-server.js";
import { silentLogger, type Logger } from "./log.js";
import { GatewayMetrics } from "./metrics.js";
import type { GatewayModels } from "./models.js";
import type { Hub } from "../mcp/hub.js";
import { TurnRunner, type TurnSettings } from "./turns.js";
import { ApprovalAnswerSchema, parseBody, PendingApprovals, sendTranscript, sendWebFile, streamWebTurn, TranscriptRequestSchema, WebTurnSchema } from "./web-chat.js";

export const DEFAULT_GATEWAY_PORT = 4000;
export const DEFAULT_MAX_REQUEST_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MAX_CONCURRENT_PER_KEY = 32;

/** The part of the hub the gateway uses. */
export type GatewayHub = HubServerSource & Pick<Hub, "servers">;

export interface GatewayOptions {
  hub: GatewayHub;
  models: GatewayModels;
  settings: Omit<TurnSettings, "tools">;
  /** Interface to bind; 127.0.0.1 unless given. */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Bearer keys; required (by the caller) to bind beyond loopback. */
  apiKeys?: readonly string[];
  corsOrigins?: readonly string[];
  allowedHosts?: readonly string[];
  maxRequestBytes?: number;
  maxConcurrentPerKey?: number;
  log?: Logger;
}

export interface GatewayHandle {
  /** e.g. http://127.0.0.1:4000 */
  url: string;
  metrics: GatewayMetrics;
  close(): Promise<void>;
}

/** A route's work once the caller is known and admitted. */
type Route = (req: IncomingMessage, res: ServerResponse, context: { requestId: string; signal: AbortSignal }) => Promise<void>;

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** A stateless MCP endpoint has no stream to open and no session to end. */
function mcpMethodNotAllowed(res: ServerResponse): void {
  sendJson(res, 405, { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this endpoint is stateless; POST requests only" }, id: null }, { allow: "POST" });
}

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\./.test(host);
}

/**
 * The OpenAI-compatible gateway: `/v1/models`, `/v1/chat/completions` (the tool loop inside),
 * `/healthz`, `/readyz`, `/metrics`. Keeps no conversation state: each request carries its
 * conversation, so replicas behind a load balancer need nothing shared.
 */
export async function startGateway(options: GatewayOptions): Promise<GatewayHandle> {
  const host = options.host ?? "127.0.0.1";
  const log = options.log ?? silentLogger;
  const metrics = new GatewayMetrics();
  const keys = new ApiKeys(options.apiKeys ?? []);
  const limit = new ConcurrencyLimit(options.maxConcurrentPerKey ?? DEFAULT_MAX_CONCURRENT_PER_KEY);
  const maxBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  const cors = new Set(options.corsOrigins ?? []);
  const runner = new TurnRunner({ ...options.settings, tools: options.hub }, metrics);
  // Known once listening (port 0 resolves then). Only a loopback server needs the DNS-rebinding check:
  // beyond loopback, keys are required and the Host is whatever the load balancer says.
  let policy: HostPolicy | undefined;
  const approvals = new PendingApprovals();
  // The hub as one MCP server, stateless (a server per request) so that replicas need no sessions:
  // 2026-07-28 is stateless by design; a 2025-11-25 request is served by a fresh server too.
  const mcp = createMcpHandler(() => createHubServer(options.hub, options.settings), { maxRequestBodySize: maxBytes });
  const serveMcp = toNodeHandler(mcp, { maxRequestBodySize: maxBytes });
  const requireModel = async (name: string) => {
    const model = await options.models.get(name);
    if (!model) throw new HttpError(404, `The model "${name}" does not exist here; GET /v1/models lists those that do.`, "invalid_request_error", "model_not_found");
    return model;
  };

  const routes: Record<string, Route | undefined> = {
    "GET /v1/models": async (_req, res) => {
      const created = Math.floor(Date.now() / 1000);
      const ids = await options.models.list();
      sendJson(res, 200, { object: "list", data: ids.map((id) => ({ id, object: "model", created, owned_by: "toolbridge" })) });
    },
    "POST /v1/chat/completions": async (req, res, { requestId, signal }) => {
      const body = await readJsonBody(req, maxBytes);
      const header = req.headers[TOOL_ACTIVITY_HEADER];
      await handleChatCompletion({
        body,
        res,
        signal,
        runner,
        model: requireModel,
        log,
        requestId,
        toolActivityHeader: header === "1" || header === "true" || header === "reasoning",
      });
    },
    "POST /mcp": async (req, res) => serveMcp(req, res, await readJsonBody(req, maxBytes)),
    "GET /mcp": async (_req, res) => mcpMethodNotAllowed(res),
    "DELETE /mcp": async (_req, res) => mcpMethodNotAllowed(res),
    // The web chat's API.
    "GET /api/status": async (_req, res) => {
      const primary = options.models.primary;
      sendJson(res, 200, {
        servers: options.hub.servers().map(({ name, status, toolCount, error }) => ({ name, status, toolCount, ...(error ? { error } : {}) })),
        tools: runner.offered().map(({ name, server, description }) => ({ name, server, ...(description ? { description } : {}) })),
        models: await options.models.list(),
        model: primary.modelId,
        toolMode: runner.toolMode(primary),
        approve: options.settings.approve,
      });
    },
    "POST /api/chat": async (req, res, { signal }) => {
      const turn = parseBody(WebTurnSchema, await readJsonBody(req, maxBytes));
      await streamWebTurn(turn, { res, signal, runner, model: await requireModel(turn.model), approvals });
    },
    "POST /api/approvals": async (req, res) => {
      const { id, decision } = parseBody(ApprovalAnswerSchema, await readJsonBody(req, maxBytes));
      if (!approvals.answer(id, { decision })) throw new HttpError(404, `No approval ${id} is waiting here`, "invalid_request_error", "not_found");
      sendJson(res, 200, { ok: true });
    },
    "POST /api/transcript": async (req, res) => sendTranscript(res, parseBody(TranscriptRequestSchema, await readJsonBody(req, maxBytes))),
    "GET /metrics": async (_req, res) => {
      res.writeHead(200, { "content-type": metrics.registry.contentType });
      res.end(await metrics.registry.metrics());
    },
  };
  const open: Record<string, Route> = {
    "GET /healthz": async (_req, res) => sendJson(res, 200, { status: "ok" }),
    "GET /readyz": async (_req, res) => {
      const servers = options.hub.servers().filter((state) => state.status !== "disabled");
      const waiting = servers.filter((state) => state.status !== "connected").map((state) => ({ name: state.name, status: state.status }));
      sendJson(res, waiting.length === 0 ? 200 : 503, { status: waiting.length === 0 ? "ready" : "not-ready", servers: servers.length, notConnected: waiting });
    },
  };

  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string, signal: AbortSignal): Promise<string> {
    const origin = req.headers.origin;
    const allowedOrigin = origin !== undefined && cors.has(origin);
    for (const [name, value] of Object.entries(corsHeaders(origin, cors))) res.setHeader(name, value);
    if (isLoopback(host)) {
      const refusal = policy ? rejectForeignRequest(allowedOrigin ? { ...req.headers, origin: undefined } : req.headers, policy) : "The gateway is starting";
      if (refusal !== undefined) throw new HttpError(403, refusal, "forbidden");
    } else if (origin !== undefined && !allowedOrigin) {
      throw new HttpError(403, `Origin not allowed: ${origin} (gateway.corsOrigins)`, "forbidden");
    }
    const path = new URL(req.url ?? "/", "http://gateway").pathname;
    if (req.method === "OPTIONS") {
      res.writeHead(allowedOrigin ? 204 : 403);
      res.end();
      return "anonymous";
    }
    const key = `${req.method ?? "GET"} ${path}`;
    const free = open[key];
    if (free) {
      await free(req, res, { requestId, signal });
      return "anonymous";
    }
    // The page itself is public; what it calls needs a key when the gateway has keys.
    if (req.method === "GET" && (await sendWebFile(path, res))) return "anonymous";
    const route = Object.hasOwn(routes, key) ? routes[key] : undefined;
    if (!route) throw new HttpError(404, `No route ${key}`, "invalid_request_error", "not_found");
    const caller = keys.identify(req.headers);
    if (caller === undefined) {
      throw new HttpError(401, "Missing or wrong API key: send Authorization: Bearer <key>", "invalid_request_error", "invalid_api_key", { "www-authenticate": "Bearer" });
    }
    const release = limit.acquire(caller);
    if (!release) {
      throw new HttpError(429, `Too many requests at once for this key (at most ${limit.perCaller}; gateway.maxConcurrentPerKey)`, "rate_limit_error", "concurrency_limit", { "retry-after": "1" });
    }
    try {
      await route(req, res, { requestId, signal });
    } finally {
      release();
    }
    return caller;
  }

  const server = createServer((req, res) => {
    const started = performance.now();
    const requestId = randomUUID();
    res.setHeader("x-request-id", requestId);
    // The client going away (closing the stream, dropping the connection) cancels its turn.
    const controller = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) controller.abort(new Error("the client disconnected"));
    });
    const route = `${req.method ?? "GET"} ${new URL(req.url ?? "/", "http://gateway").pathname}`;
    handle(req, res, requestId, controller.signal)
      .catch((error: unknown) => {
        const failure = error instanceof HttpError ? error : new HttpError(500, "Internal error", "server_error");
        if (!(error instanceof HttpError)) log.log("error", "request failed", { requestId, error: error instanceof Error ? error.message : String(error) });
        if (res.headersSent) res.end();
        else sendError(res, failure);
        return "unknown";
      })
      .then((caller) => {
        const known = route in routes || route in open ? route : "other";
        metrics.requests.inc({ route: known, status: String(res.statusCode) });
        log.log("info", "request", {
          requestId,
          method: req.method,
          path: new URL(req.url ?? "/", "http://gateway").pathname,
          status: res.statusCode,
          caller,
          durationMs: Math.round(performance.now() - started),
          ...(controller.signal.aborted ? { disconnected: true } : {}),
        });
      });
  });
  server.keepAliveTimeout = 65_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? DEFAULT_GATEWAY_PORT, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  policy = hostPolicy(host, port, options.allowedHosts);
  return {
    url: `http://${urlHost(host)}:${port}`,
    metrics,
    close: async () => {
      await mcp.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
