import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { hostPolicy, isLoopbackHost, rejectForeignRequest, urlHost, type HostPolicy } from "../servers/host-check.js";
import { ANONYMOUS, ApiKeys, corsHeaders, type Caller } from "./access.js";
import { anthropicErrorBody } from "./messages/anthropic-wire.js";
import { handleChatCompletion } from "./chat-completions/chat-completions.js";
import { TOOL_ACTIVITY_HEADER, type CompletionContext } from "./completion-context.js";
import { handleCountTokens, handleMessages } from "./messages/messages.js";
import { DEFAULT_BODY_TIMEOUT_MS, HttpError, readJsonBody, sendError, sendJson } from "./http.js";
import { createHubServer, publishHubChanges, resourceOwners } from "./hub-server.js";
import { withResourceListens } from "./hub-server-subscriptions.js";
import { TaskStore, withTaskListens } from "../mcp/tasks/ext-tasks-server.js";
import { silentLogger, type Logger } from "./log.js";
import { GatewayMetrics } from "./metrics.js";
import type { GatewayModels } from "./models.js";
import { handleCreateResponse, handleStoredResponse } from "./responses/responses.js";
import { DEFAULT_STORE_TTL_SECONDS, StateUnavailableError, type GatewayState } from "./state/state.js";
import { openEmbeddedState } from "./state/embedded.js";
import { TurnRunner, type TurnSettings } from "./turns.js";
import { WebChat } from "./web-chat/web-chat.js";
import { sendWebFile } from "./web-page.js";
import type { WebServerQuestions } from "./web-chat/server-questions.js";
import type { WebChatHub } from "./web-chat/mcp.js";

export const DEFAULT_GATEWAY_PORT = 4000;
export const DEFAULT_MAX_REQUEST_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MAX_CONCURRENT_PER_KEY = 32;

/** The part of the hub the gateway uses; the web chat also shows completion, roots and log lines where the hub has them. */
export type GatewayHub = WebChatHub;

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
  /** How long a client may take to send a request's body (default 30 s). */
  bodyTimeoutMs?: number;
  maxConcurrentPerKey?: number;
  /** How long a web-chat approval waits for the person before its call is denied (default 10 minutes). */
  approvalTimeoutMs?: number;
  /** An MCP App's declared CSP may name wildcard hosts and local (loopback, private, link-local) ones (`gateway.appCspAllowLocal`). */
  appCspAllowLocal?: boolean;
  /** Requests one key may make a minute; no limit unless given. */
  maxRequestsPerMinute?: number;
  /** Stored responses and per-key limits (Redis for replicas); in memory, for this process, unless given. */
  state?: GatewayState;
  log?: Logger;
  /** Where the hub's elicitation and sampling handlers ask (webClientHandlers): the page of the turn whose tool is running. */
  questions?: WebServerQuestions;
}

export interface GatewayHandle {
  /** e.g. http://127.0.0.1:4000 */
  url: string;
  metrics: GatewayMetrics;
  close(): Promise<void>;
}

/** A route's work once the caller is known and admitted; `caller` is its id (Caller.id), what it owns is held under. */
type Route = (req: IncomingMessage, res: ServerResponse, context: { requestId: string; signal: AbortSignal; caller: string }) => Promise<void>;

/** A stateless MCP endpoint has no stream to open and no session to end. */
function mcpMethodNotAllowed(res: ServerResponse): void {
  sendJson(res, 405, { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this endpoint is stateless; POST requests only" }, id: null }, { allow: "POST" });
}

/** Whether the address to listen on is this machine's own: parsed, so `127.0.0.1.attacker.example` is not. */
export function isLoopback(host: string): boolean {
  return isLoopbackHost(host);
}

/**
 * The OpenAI-compatible gateway: `/v1/models`, `/v1/chat/completions` (the tool loop inside),
 * `/healthz`, `/readyz`, `/metrics`. Keeps no conversation state: each request carries its
 * conversation, so replicas behind a load balancer need nothing shared.
 */
export async function startGateway(options: GatewayOptions): Promise<GatewayHandle> {
  const host = options.host ?? "127.0.0.1";
  const loopback = isLoopback(host);
  const log = options.log ?? silentLogger;
  const metrics = new GatewayMetrics();
  const keys = new ApiKeys(options.apiKeys ?? []);
  const limits = { maxConcurrentPerKey: options.maxConcurrentPerKey ?? DEFAULT_MAX_CONCURRENT_PER_KEY, ...(options.maxRequestsPerMinute ? { maxRequestsPerMinute: options.maxRequestsPerMinute } : {}) };
  // A state made here is this gateway's to close; one given is the caller's.
  const ownState = options.state === undefined;
  const state = options.state ?? (await openEmbeddedState({ ttlSeconds: DEFAULT_STORE_TTL_SECONDS, limits }));
  const maxBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const cors = new Set(options.corsOrigins ?? []);
  const runner = new TurnRunner({ ...options.settings, tools: options.hub }, metrics);
  // Known once listening (port 0 resolves then). Only a loopback server needs the DNS-rebinding check:
  // beyond loopback, keys are required and the Host is whatever the load balancer says.
  let policy: HostPolicy | undefined;
  // The hub as one MCP server, stateless (a server per request) so that replicas need no sessions:
  // 2026-07-28 is stateless by design; a 2025-11-25 request is served by a fresh server too.
  // Its tasks (the tasks extension) outlive the request that started them, so the store is the gateway's.
  const tasks = new TaskStore();
  // The caller (known from the key) comes to the factory as the request's auth, set by the /mcp route.
  const mcp = createMcpHandler((ctx) => createHubServer(options.hub, options.settings, tasks, ctx.authInfo?.clientId ?? "anonymous", ctx.era === "legacy"), { maxRequestBodySize: maxBytes });
  // A subscriptions/listen naming tasks also hears of their status changes, which the SDK's handler knows nothing of.
  // A subscriptions/listen naming resources names only those the caller may read, held at their servers meanwhile.
  const serveMcp = toNodeHandler(withTaskListens(withResourceListens(mcp, options.hub, resourceOwners(options.hub, options.settings)), tasks), { maxRequestBodySize: maxBytes });
  // The servers' list changes reach the hub's 2026-07-28 clients on their subscriptions/listen streams.
  const unpublish = publishHubChanges(options.hub, mcp.notify);
  const requireModel = async (name: string) => {
    const model = await options.models.get(name);
    if (!model) throw new HttpError(404, `The model "${name}" does not exist here; GET /v1/models lists those that do.`, "invalid_request_error", "model_not_found");
    return model;
  };

  const web = new WebChat({ hub: options.hub, models: options.models, runner, approve: options.settings.approve, servers: options.settings.servers, ...(options.settings.toolFilter ? { toolFilter: options.settings.toolFilter } : {}), ...(options.settings.rules ? { rules: options.settings.rules } : {}), ...(options.appCspAllowLocal ? { appCspAllowLocal: true } : {}), maxBytes, requireModel, approvals: state.approvals, questionRelay: state.questions, maxConcurrentPerKey: limits.maxConcurrentPerKey, ...(options.approvalTimeoutMs ? { approvalTimeoutMs: options.approvalTimeoutMs } : {}), ...(options.questions ? { questions: options.questions } : {}) });
  metrics.countWebApps(() => web.appsHeld());
  const completionContext = async (req: IncomingMessage, res: ServerResponse, { requestId, signal }: { requestId: string; signal: AbortSignal }): Promise<CompletionContext> => {
    const header = req.headers[TOOL_ACTIVITY_HEADER];
    return {
      body: await readJsonBody(req, maxBytes),
      res,
      signal,
      runner,
      model: requireModel,
      log,
      requestId,
      toolActivityHeader: header === "1" || header === "true" || header === "reasoning",
      anthropicBetas: String(req.headers["anthropic-beta"] ?? "").split(",").map((beta) => beta.trim()).filter((beta) => beta !== ""),
    };
  };

  const routes: Record<string, Route | undefined> = {
    "GET /v1/models": async (_req, res) => sendJson(res, 200, { object: "list", data: await options.models.entries() }),
    "POST /v1/chat/completions": async (req, res, route) => handleChatCompletion(await completionContext(req, res, route)),
    "POST /v1/messages": async (req, res, route) => handleMessages(await completionContext(req, res, route)),
    "POST /v1/messages/count_tokens": async (req, res, route) => handleCountTokens(await completionContext(req, res, route)),
    "POST /v1/responses": async (req, res, { requestId, signal, caller }) => {
      await handleCreateResponse(await readJsonBody(req, maxBytes), {
        res,
        signal,
        runner,
        model: requireModel,
        store: state.responses,
        approvals: state.issuedApprovals,
        servers: options.settings.servers,
        log,
        requestId,
        caller,
      });
    },
    "POST /mcp": async (req, res, { caller }) => serveMcp(Object.assign(req, { auth: { token: "", clientId: caller, scopes: [] } }), res, await readJsonBody(req, maxBytes)),
    "GET /mcp": async (_req, res) => mcpMethodNotAllowed(res),
    "DELETE /mcp": async (_req, res) => mcpMethodNotAllowed(res),
    ...web.routes(),
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

  async function handle(req: IncomingMessage, res: ServerResponse, path: string, requestId: string, signal: AbortSignal): Promise<Caller> {
    const origin = req.headers.origin;
    const allowedOrigin = origin !== undefined && cors.has(origin);
    for (const [name, value] of Object.entries(corsHeaders(origin, cors))) res.setHeader(name, value);
    if (loopback) {
      const refusal = policy ? rejectForeignRequest(allowedOrigin ? { ...req.headers, origin: undefined } : req.headers, policy) : "The gateway is starting";
      if (refusal !== undefined) throw new HttpError(403, refusal, "forbidden");
    } else if (origin !== undefined && !allowedOrigin) {
      throw new HttpError(403, `Origin not allowed: ${origin} (gateway.corsOrigins)`, "forbidden");
    }
    if (req.method === "OPTIONS") {
      res.writeHead(allowedOrigin ? 204 : 403);
      res.end();
      return ANONYMOUS;
    }
    const key = `${req.method ?? "GET"} ${path}`;
    const free = open[key];
    if (free) {
      await free(req, res, { requestId, signal, caller: ANONYMOUS.id });
      return ANONYMOUS;
    }
    // The page itself is public; what it calls needs a key when the gateway has keys.
    if (req.method === "GET" && ((await sendWebFile(path, res)) || web.sendFrame(path, res))) return ANONYMOUS;
    const route: Route | undefined = Object.hasOwn(routes, key)
      ? routes[key]
      : path.startsWith("/v1/responses/")
        ? async (routeReq, res, { caller }) => {
            const query = new URL(routeReq.url ?? "/", "http://gateway").searchParams;
            if (!(await handleStoredResponse(routeReq.method ?? "GET", path, query, { res, store: state.responses, caller }))) {
              throw new HttpError(404, `No route ${key}`, "invalid_request_error", "not_found");
            }
          }
        : undefined;
    if (!route) throw new HttpError(404, `No route ${key}`, "invalid_request_error", "not_found");
    const caller = keys.identify(req.headers);
    if (caller === undefined) {
      throw new HttpError(401, "Missing or wrong API key: send Authorization: Bearer <key> (or x-api-key: <key>)", "invalid_request_error", "invalid_api_key", { "www-authenticate": "Bearer" });
    }
    // The body first, within its time: a client that trickles it holds a connection, not a slot.
    if (req.method === "POST") await readJsonBody(req, maxBytes, bodyTimeoutMs);
    const admitted = await state.limits.admit(caller.id);
    if ("refused" in admitted) {
      throw admitted.refused === "rate"
        ? new HttpError(429, `Too many requests this minute for this key (at most ${limits.maxRequestsPerMinute}; gateway.maxRequestsPerMinute)`, "rate_limit_error", "rate_limit", { "retry-after": String(60 - (Math.floor(Date.now() / 1000) % 60)) })
        : new HttpError(429, `Too many requests at once for this key (at most ${limits.maxConcurrentPerKey}; gateway.maxConcurrentPerKey)`, "rate_limit_error", "concurrency_limit", { "retry-after": "1" });
    }
    // The place is free before the client sees the end: its next request, on any replica, must not find it taken.
    endAfter(res, admitted.release);
    try {
      await route(req, res, { requestId, signal, caller: caller.id });
    } finally {
      await admitted.release();
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
    const path = pathOf(req.url);
    const route = `${req.method ?? "GET"} ${path}`;
    handle(req, res, path, requestId, controller.signal)
      .catch((error: unknown) => {
        const failure =
          error instanceof HttpError
            ? error
            : error instanceof StateUnavailableError
              ? new HttpError(503, error.message, "service_unavailable", "store_unavailable", { "retry-after": "1" })
              : new HttpError(500, "Internal error", "server_error");
        if (error instanceof StateUnavailableError) log.log("warn", "store unavailable", { requestId, error: error.message });
        else if (!(error instanceof HttpError)) log.log("error", "request failed", { requestId, error: error instanceof Error ? error.message : String(error) });
        if (res.headersSent) {
          // A stream already started ends with OpenAI's error event, so the client knows why.
          if (error instanceof StateUnavailableError && !res.writableEnded) res.write(`event: error\ndata: ${JSON.stringify({ type: "error", code: "store_unavailable", message: error.message, param: null })}\n\n`);
          res.end();
        }
        // The Messages API's clients read Anthropic's error shape.
        else sendError(res, failure, route.startsWith("POST /v1/messages") ? (e) => anthropicErrorBody(e.status, e.message) : undefined);
        return undefined;
      })
      .then((caller) => {
        const known = route in routes || route in open ? route : "other";
        metrics.requests.inc({ route: known, status: String(res.statusCode) });
        log.log("info", "request", {
          requestId,
          method: req.method,
          path,
          status: res.statusCode,
          caller: caller?.label ?? "unknown",
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
  const { port, address } = server.address() as AddressInfo;
  // The name said loopback; the address bound must be too (a name can resolve anywhere).
  if (loopback && !isLoopback(address)) {
    unpublish();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw new Error(`${host} resolved to ${address}, which is not this machine's loopback; give an address, and API keys to listen beyond loopback`);
  }
  policy = hostPolicy(host, port, options.allowedHosts);
  return {
    url: `http://${urlHost(host)}:${port}`,
    metrics,
    close: async () => {
      web.close();
      unpublish();
      tasks.close();
      await mcp.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      if (ownState) await state.close();
    },
  };
}

/**
 * The request's path. A plain one (segments of letters, digits, `_` and `-`: every route) is
 * taken as it is; only one with anything to resolve (dot segments, escapes, `//`) is parsed as
 * a URL, which took 17 µs of every request.
 */
function pathOf(url = "/"): string {
  const query = url.indexOf("?");
  const path = query === -1 ? url : url.slice(0, query);
  return /^(?:\/[\w-]+)*\/?$/.test(path) ? path : new URL(url, "http://gateway").pathname;
}

/** Makes the response's end wait for `first` (run once; a second end is ignored). */
function endAfter(res: ServerResponse, first: () => void | Promise<void>): void {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  let ending = false;
  res.end = ((...args: unknown[]) => {
    if (ending) return res;
    ending = true;
    void Promise.resolve(first()).finally(() => end(...args));
    return res;
  }) as typeof res.end;
}
