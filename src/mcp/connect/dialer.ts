import { Client, SdkHttpError, SSEClientTransport, type PriorDiscovery } from "@modelcontextprotocol/client";
import { registerSecret } from "../../config/redact.js";
import { isStdioServer, isWebSocketServer, type ProtocolSetting, type RemoteServerConfig, type ServerConfig } from "../../config/schema.js";
import { keepArrivalOrder } from "../arrival-order.js";
import type { OAuthSession } from "../auth/session.js";
import { usableHints } from "../cache-hints.js";
import { clientCapabilities } from "../client-features.js";
import { HubError } from "../errors.js";
import type { MessageTooLargeError } from "../limits.js";
import type { StderrTail } from "../server-log.js";
import { untilAborted } from "../time-limit.js";
import { compiledSchemas } from "../tool-call.js";
import { answerPosts } from "../transport/answer-posts.js";
import { limitedFetch } from "../transport/limited-fetch.js";
import { ownSignals } from "../transport/request-signals.js";
import { ProcessGroupTransport } from "../transport/stdio.js";
import { WebSocketClientTransport } from "../transport/websocket.js";
import type { ClientHandlers, Root } from "../types.js";
import { describe } from "./describe-error.js";
import { exitedOnProbe, LEGACY, LEGACY_VERSION, MODERN, PROBE_TIMEOUT_MS, probeFailedOnServer, refusedAllBut } from "./era.js";
import { closeTransport, spawnStdio, streamableTo, webSocketTo, type StreamReopening, type Transport } from "./transports.js";

/** A server that printed non-JSON-RPC on stdout gets this long to answer initialize anyway. */
const GARBAGE_GRACE_MS = 1500;

/** What the dialer needs of its connection: its settings, and its hands on a client it makes. */
export interface DialerHost {
  readonly name: string;
  readonly config: ServerConfig;
  readonly clientInfo: { name: string; version: string };
  readonly handlers: ClientHandlers;
  readonly roots: (() => Root[]) | undefined;
  readonly auth: OAuthSession | undefined;
  readonly tail: StderrTail;
  readonly streams: StreamReopening;
  startupTimeoutMs(): number;
  maxMessageBytes(): number;
  log(line: string): void;
  /** Sets a new client's notification and request handlers, before it connects. */
  prepare(client: Client): void;
  /** An error its transport reported once `client` connected (an event stream that failed). */
  transportError(client: Client, error: Error): void;
  closed(client: Client): void;
  /** A stream that carries no reply to a request passed maxMessageBytes. */
  oversizedStream(error: MessageTooLargeError): void;
  /** A Streamable HTTP server turned out to speak the legacy SSE transport only. */
  fellBackToSse(): void;
  /** Ends a client that did not connect, and its transport. */
  dispose(client: Client, transport: Transport): Promise<void>;
}

/**
 * Connects to one server over the transport its config names, in the protocol era it speaks: v2 probes with
 * server/discover and speaks 2026-07-28 to a server that offers it, else initializes as in 2025. What a server
 * showed of its era (exited on the probe, answered it too late) is kept for its restarts.
 */
export class Dialer {
  /**
   * Set when this server showed it speaks 2025-11-25 only (it exited on, or did not answer,
   * server/discover): its restarts initialize at once instead of probing again.
   */
  private legacyOnly = false;
  /**
   * Set when this stdio server answered server/discover only after the probe's bound and then refused
   * 2025-11-25 (slow to start, on a loaded machine): it speaks 2026-07-28 alone, and is spoken to in it
   * from then on, its restarts given their whole start-up for the handshake.
   */
  private modernOnly = false;

  constructor(private readonly host: DialerHost) {}

  /** The protocol revision this server is spoken to in: "auto" negotiates it. */
  get protocol(): ProtocolSetting {
    return this.host.config.protocol ?? (this.modernOnly ? MODERN : "auto");
  }

  async open(startup: AbortController): Promise<{ client: Client; transport: Transport }> {
    const { config, log } = this.host;
    if (isStdioServer(config)) {
      const spawn = (): ProcessGroupTransport => spawnStdio(config, this.host.tail, (line) => log(line));
      const transport = spawn();
      try {
        return { client: await this.connectClient(transport, startup, this.legacyOnly ? LEGACY : undefined), transport };
      } catch (error) {
        if (this.protocol === "auto" && !startup.signal.aborted && refusedAllBut(error, MODERN)) {
          this.modernOnly = true;
          log(`answered the server/discover probe (2026-07-28) too late and refused ${LEGACY_VERSION}: started again speaking ${MODERN}`);
          const again = spawn();
          return { client: await this.connectClient(again, startup), transport: again };
        }
        // Servers on SDKs that end on any request before initialize exit on the probe: a 2025 server, started again.
        if (this.legacyOnly || this.protocol !== "auto" || startup.signal.aborted || !exitedOnProbe(error)) throw error;
        this.legacyOnly = true;
        log("exited on the server/discover probe (2026-07-28): started again speaking 2025-11-25");
        const again = spawn();
        return { client: await this.connectClient(again, startup, LEGACY), transport: again };
      }
    }
    const url = new URL(config.url);
    for (const value of Object.values(config.headers ?? {})) registerSecret(value.replace(/^(Bearer|Basic|Token)\s+/i, ""));
    const auth = this.host.auth;
    const requestInit = {
      ...(config.headers ? { requestInit: { headers: config.headers } } : {}),
      ...(auth ? { authProvider: auth.provider } : {}),
    };
    if (isWebSocketServer(config)) return this.openWebSocket(url, config, startup);
    // The size limit over the OAuth session's fetch, which notes what a 401 or 403 asks for; answers posted a few at a
    // time, and once more if a connection closed under one; each request with a signal of its own.
    const fetch = ownSignals(
      answerPosts(
        limitedFetch({
          maxMessageBytes: this.host.maxMessageBytes(),
          onOversizedStream: (error) => this.host.oversizedStream(error),
          ...(auth ? { fetch: auth.fetch } : {}),
        }),
      ),
    );
    if (config.type === "sse") {
      // The HTTP+SSE transport of 2024-11-05 predates server/discover.
      const transport = new SSEClientTransport(url, { ...requestInit, fetch });
      return { client: await this.connectClient(transport, startup, LEGACY), transport };
    }
    const reconnection = this.host.streams.fresh();
    const streamable = streamableTo(url, requestInit, reconnection, fetch);
    try {
      return { client: await this.connectClient(streamable, startup), transport: streamable };
    } catch (caught) {
      let error = caught;
      await closeTransport(streamable);
      // A 5xx to the server/discover probe is a refusal of it like any other (a 2025 server whose router throws on
      // a method it does not know): v2 gives up there, so the server is asked with initialize, as v2 does for a 4xx.
      if (this.protocol === "auto" && !startup.signal.aborted && probeFailedOnServer(error)) {
        log(`answered the server/discover probe (2026-07-28) with ${describe(error)}: speaking ${LEGACY_VERSION}`);
        const again = streamableTo(url, requestInit, reconnection, fetch);
        try {
          return { client: await this.connectClient(again, startup, LEGACY), transport: again };
        } catch (legacyError) {
          await closeTransport(again);
          error = legacyError;
        }
      }
      // The spec's backwards compatibility: a 4xx to the POST of initialize means an old
      // server that only speaks the HTTP+SSE transport of 2024-11-05; 401 and 403 are about credentials.
      // A server pinned to 2026-07-28 has no such fallback.
      if (!(error instanceof SdkHttpError) || error.status < 400 || error.status >= 500 || isAuthStatus(error.status) || this.protocol === MODERN) {
        throw error;
      }
      const sse = new SSEClientTransport(url, { ...requestInit, fetch });
      try {
        const client = await this.connectClient(sse, startup, LEGACY);
        this.host.fellBackToSse();
        return { client, transport: sse };
      } catch (sseError) {
        await closeTransport(sse);
        throw new Error(
          `Streamable HTTP: ${describe(error)}; legacy SSE: ${describe(sseError)}`,
        );
      }
    }
  }

  /** A WebSocket server: one that closes on the probe is spoken to in 2025-11-25. */
  private async openWebSocket(url: URL, config: RemoteServerConfig, startup: AbortController): Promise<{ client: Client; transport: Transport }> {
    const connect = async (prior?: PriorDiscovery): Promise<{ client: Client; transport: Transport }> => {
      const transport = webSocketTo(url, config, this.host.maxMessageBytes(), this.host.startupTimeoutMs());
      try {
        return { client: await this.connectClient(transport, startup, prior), transport };
      } catch (error) {
        await closeTransport(transport);
        throw error;
      }
    };
    try {
      return await connect(this.legacyOnly ? LEGACY : undefined);
    } catch (error) {
      if (this.legacyOnly || this.protocol !== "auto" || startup.signal.aborted || !exitedOnProbe(error)) throw error;
      this.legacyOnly = true;
      this.host.log("closed the WebSocket on the server/discover probe (2026-07-28): connected again speaking 2025-11-25");
      return connect(LEGACY);
    }
  }

  /**
   * A client on `transport`, connected in the era the server speaks (`prior` LEGACY skips the probe).
   * The probe is made in place, on the one connection.
   */
  private async connectClient(transport: Transport, startup: AbortController, prior?: PriorDiscovery): Promise<Client> {
    const host = this.host;
    const startupTimeoutMs = host.startupTimeoutMs();
    keepArrivalOrder(transport, usableHints(transport, (line) => host.log(line)));
    // Silence to the probe means a 2025 server only on stdio; on HTTP it is an outage (v2 fails the connect),
    // and pinned to 2026-07-28 the probe is the handshake itself: both get the whole start-up, as initialize would.
    const guessing = transport instanceof ProcessGroupTransport && this.protocol === "auto";
    const probeTimeoutMs = guessing ? Math.min(PROBE_TIMEOUT_MS, Math.ceil(startupTimeoutMs / 2)) : startupTimeoutMs;
    // A pinned 2025-11-25 skips the probe; a pinned 2026-07-28 must be offered by server/discover, with no fallback.
    if (this.protocol === LEGACY_VERSION) prior = LEGACY;
    if (this.protocol === MODERN && prior === LEGACY) {
      throw new HubError("server-error", `"protocol": "${MODERN}" needs Streamable HTTP or stdio: the legacy SSE transport speaks ${LEGACY_VERSION} at most`);
    }
    const client = new Client(host.clientInfo, {
      capabilities: clientCapabilities({ handlers: host.handlers, roots: host.roots }),
      versionNegotiation: { mode: this.protocol === MODERN ? { pin: MODERN } : "auto", probe: { timeoutMs: probeTimeoutMs } },
      jsonSchemaValidator: compiledSchemas,
    });
    let initialized = false;
    let garbageTimer: NodeJS.Timeout | undefined;
    // On the transport, not the client: v2 forwards a transport's errors during the server/discover probe too.
    transport.onerror = (error) => {
      // An event stream that failed or could not be reopened, heard while no request is under way.
      if (initialized) host.transportError(client, error);
      if (!isUnparsableOutput(error)) return;
      const where = transport instanceof WebSocketClientTransport ? "a WebSocket frame" : "stdout";
      host.log(`${where} is not JSON-RPC: ${describe(error)}`);
      // Some servers print a banner before they start speaking JSON-RPC; give them a moment.
      garbageTimer ??= setTimeout(() => {
        if (!initialized) startup.abort(new HubError("server-error", `wrote something that is not JSON-RPC ${where === "stdout" ? "on stdout" : "in a WebSocket frame"} (${describe(error)})`));
      }, GARBAGE_GRACE_MS);
    };
    client.onclose = () => {
      clearTimeout(garbageTimer);
      host.closed(client);
    };
    host.prepare(client);
    try {
      const started = performance.now();
      // The SDK hears the signal only after its server/discover probe: a close (Ctrl-C) during the probe must not wait it out.
      await untilAborted(client.connect(transport, { signal: startup.signal, timeout: startupTimeoutMs + 1000, ...(prior ? { prior } : {}) }), startup.signal);
      initialized = true;
      if (!prior && transport instanceof ProcessGroupTransport && client.getProtocolEra() === "legacy" && performance.now() - started >= probeTimeoutMs) {
        this.legacyOnly = true;
        host.log(`did not answer the server/discover probe (2026-07-28) within ${probeTimeoutMs} ms: speaking 2025-11-25`);
      }
      return client;
    } catch (error) {
      // Given up while the SDK still probes, the client may not hold the transport yet: both are closed.
      // After a signal to toolbridge (dispose) the process is ended at once, not after the stdin grace.
      await host.dispose(client, transport);
      await closeTransport(transport);
      throw error;
    } finally {
      clearTimeout(garbageTimer);
    }
  }
}

function isAuthStatus(status: number): boolean {
  return status === 401 || status === 403;
}

/** What the SDK's stdio reader reports for a line that is not a JSON-RPC message. */
function isUnparsableOutput(error: Error): boolean {
  return error instanceof SyntaxError || error.name === "ZodError" || error.constructor.name.includes("ZodError");
}
