import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { NodeStreamableHTTPServerTransport } from "@modelcontextprotocol/node";
import { isInitializeRequest, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/server";
import type { McpServer } from "@modelcontextprotocol/server";
import { SessionEventStore } from "./event-store.js";
import { hostPolicy, isLoopbackHost, rejectForeignRequest, urlHost, type HostPolicy } from "./host-check.js";

/** Makes a fresh server; over HTTP every session gets its own. */
export type ServerFactory = () => McpServer;

export interface HttpServeOptions {
  /** Interface to bind; 127.0.0.1 unless given. */
  host?: string;
  /** 0 picks a free port; the handle's url tells which. */
  port?: number;
  /** Hostnames accepted in Host/Origin besides loopback names and the bound host (e.g. a LAN name when binding 0.0.0.0). */
  allowedHosts?: string[];
  /** A session with no request open (an SSE stream counts) for this long is closed; default 5 minutes. */
  sessionIdleMs?: number;
  /** Most sessions at once; a new one past it closes the least recently used. Default 100. */
  maxSessions?: number;
  /**
   * Every request must carry `Authorization: Bearer <token>`. Required to bind anything but a
   * loopback address: the Host check stops browsers, not other programs on the network.
   */
  token?: string;
}

export interface HttpServerHandle {
  /** The Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp. */
  url: string;
  /** Open sessions; each holds one server. */
  sessionCount(): number;
  /** Ends every session and stops listening. */
  close(): Promise<void>;
}

export const MCP_PATH = "/mcp";
const DEFAULT_SESSION_IDLE_MS = 5 * 60 * 1000;
const DEFAULT_MAX_SESSIONS = 100;
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** The `retry` (ms) of each stream's priming event: how soon a client whose stream closed reconnects. */
const SSE_RETRY_MS = 1000;
const PROTOCOL_HEADER = "mcp-protocol-version";

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  /** Requests in progress, open SSE streams included: a session with one is not idle. */
  open: number;
  lastActive: number;
  /** The protocol version agreed at initialize. */
  protocolVersion: string;
}

/** Counts the request against the session until its response ends. */
function track(session: Session, res: ServerResponse): void {
  session.open++;
  res.once("close", () => {
    session.open--;
    session.lastActive = Date.now();
  });
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

function sendError(res: ServerResponse, failure: HttpFailure): void {
  const challenge = failure.status === 401 ? { "www-authenticate": 'Bearer realm="toolbridge"' } : {};
  res.writeHead(failure.status, { "content-type": "application/json", ...challenge });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: failure.code, message: failure.message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpFailure(413, -32600, `Request body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpFailure(400, -32700, "Parse error: request body is not valid JSON");
  }
}

/**
 * The session's streams follow the version agreed at initialize: a request that names an older one
 * in its header (the client said at initialize that it speaks the newer) is read as of the session's,
 * so that its stream is primed for resumption too.
 */
function agreedVersion(req: IncomingMessage, agreed: string): void {
  const named = req.headers[PROTOCOL_HEADER];
  if (typeof named !== "string" || !SUPPORTED_PROTOCOL_VERSIONS.includes(named) || named >= agreed) return;
  req.headers[PROTOCOL_HEADER] = agreed;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]?.toLowerCase() === PROTOCOL_HEADER) req.rawHeaders[i + 1] = agreed;
  }
}

/**
 * Serves MCP over Streamable HTTP at /mcp with one server per session, Host/Origin
 * checks against DNS rebinding, bound to 127.0.0.1 unless told otherwise.
 */
export async function serveHttp(factory: ServerFactory, options: HttpServeOptions = {}): Promise<HttpServerHandle> {
  const host = options.host ?? "127.0.0.1";
  if (!isLoopbackHost(host) && !options.token) {
    throw new Error(`serving on ${host}, which other machines can reach, needs a bearer token`);
  }
  const tokenDigest = options.token ? digest(options.token) : undefined;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  /** In order of use, least recent first: a Map keeps insertion order, and each use re-inserts. */
  const sessions = new Map<string, Session>();
  // Known only once listening: port 0 resolves then.
  let policy: HostPolicy | undefined;

  async function startSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const requested = isInitializeRequest(body) ? body.params.protocolVersion : "";
    const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : (SUPPORTED_PROTOCOL_VERSIONS[0] as string);
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Streams start with a priming event (an id and `retry`), and a client may resume one with Last-Event-ID.
      eventStore: new SessionEventStore(),
      retryInterval: SSE_RETRY_MS,
      onsessioninitialized: (id) => {
        // One client opening sessions without end must not hold a server for each.
        while (sessions.size >= maxSessions) {
          const [oldest, session] = sessions.entries().next().value as [string, Session];
          sessions.delete(oldest);
          void session.transport.close();
        }
        sessions.set(id, { transport, open: 0, lastActive: Date.now(), protocolVersion });
      },
    });
    // Set before connect: the server chains its own close handling after this one.
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await factory().connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refusal = policy ? rejectForeignRequest(req.headers, policy) : "Server is starting";
    if (refusal !== undefined) throw new HttpFailure(403, -32000, refusal);
    if (tokenDigest && !bearerMatches(req.headers.authorization, tokenDigest)) {
      throw new HttpFailure(401, -32001, "Unauthorized: send Authorization: Bearer <token>");
    }
    if (new URL(req.url ?? "/", "http://localhost").pathname !== MCP_PATH) throw new HttpFailure(404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`);

    const body = req.method === "POST" ? await readJson(req) : undefined;
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId);
      if (!session) throw new HttpFailure(404, -32001, "Session not found");
      sessions.delete(sessionId);
      sessions.set(sessionId, session);
      track(session, res);
      agreedVersion(req, session.protocolVersion);
      await session.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method === "POST" && isInitializeRequest(body)) {
      await startSession(req, res, body);
      return;
    }
    throw new HttpFailure(400, -32000, "Bad Request: no valid session ID; start with an initialize request");
  }

  const httpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.end();
        return;
      }
      sendError(res, error instanceof HttpFailure ? error : new HttpFailure(500, -32603, "Internal server error"));
    });
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(options.port ?? 0, host, () => {
      httpServer.off("error", reject);
      resolve();
    });
  });
  const { port } = httpServer.address() as AddressInfo;
  policy = hostPolicy(host, port, options.allowedHosts);

  // Clients that vanish without DELETE would otherwise hold their server forever.
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const session of sessions.values()) {
        if (session.open === 0 && now - session.lastActive >= idleMs) void session.transport.close();
      }
    },
    Math.max(10, Math.min(idleMs / 2, 60_000)),
  );
  sweeper.unref();

  return {
    url: `http://${urlHost(host)}:${port}${MCP_PATH}`,
    sessionCount: () => sessions.size,
    close: async () => {
      clearInterval(sweeper);
      await Promise.allSettled([...sessions.values()].map((session) => session.transport.close()));
      sessions.clear();
      // Open SSE streams would otherwise hold close() until clients go away.
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeAllConnections();
      await closed;
    },
  };
}

/** Hashed first, so the comparison takes the same time whatever the length of what was sent. */
function digest(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

function bearerMatches(authorization: string | undefined, expected: Buffer): boolean {
  const sent = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
  return sent !== undefined && timingSafeEqual(digest(sent), expected);
}
