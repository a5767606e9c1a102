import { ProtocolErrorCode, SSEClientTransport, StreamableHTTPClientTransport, type FetchLike } from "@modelcontextprotocol/client";
import { isStdioServer, isWebSocketServer, type RemoteServerConfig, type ServerConfig, type StdioServerConfig } from "../../config/schema.js";
import type { StderrTail } from "../server-log.js";
import { watchResponseStreams } from "../transport/cut-streams.js";
import { ProcessGroupTransport } from "../transport/stdio.js";
import { WebSocketClientTransport } from "../transport/websocket.js";
import type { ServerState } from "../types.js";

/** The transport a config entry names, built here: a stdio child, Streamable HTTP, legacy SSE or a WebSocket. */
export type Transport = ProcessGroupTransport | StreamableHTTPClientTransport | SSEClientTransport | WebSocketClientTransport;

/** The SDK's own defaults for resuming a Streamable HTTP event stream. */
const STREAM_RECONNECTION = { initialReconnectionDelay: 1000, maxReconnectionDelay: 30_000, reconnectionDelayGrowFactor: 1.5, maxRetries: 2 };
type StreamReconnection = typeof STREAM_RECONNECTION;
/**
 * The Streamable HTTP event stream cut at maxMessageBytes this many times is not opened again: a server
 * that fills it without end would otherwise be read for ever. Each reopening waits STREAM_CUT_BACKOFF times longer.
 */
const MAX_STREAM_CUTS = 3;
const STREAM_CUT_BACKOFF = 2;

/** The transport a server's state names before it connects (a Streamable HTTP server may fall back to SSE). */
export function transportKind(config: ServerConfig): ServerState["transport"] {
  return isStdioServer(config) ? "stdio" : isWebSocketServer(config) ? "websocket" : config.type === "sse" ? "sse" : "streamable-http";
}

/** A stdio server's process group, its stderr kept in `tail` and logged line by line. */
export function spawnStdio(config: StdioServerConfig, tail: StderrTail, log: (line: string) => void): ProcessGroupTransport {
  const transport = new ProcessGroupTransport({
    command: config.command,
    args: config.args ?? [],
    // Added to the SDK's safe defaults (PATH, HOME, ...); nothing else of ours leaks.
    env: config.env ?? {},
    ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
    ...(config.maxMessageBytes !== undefined ? { maxMessageBytes: config.maxMessageBytes } : {}),
  });
  tail.clear();
  transport.stderr.on("data", (chunk: Buffer) => {
    for (const line of tail.push(chunk.toString("utf8"))) log(line);
  });
  return transport;
}

/** A WebSocket server's transport: its headers on the handshake, maxMessageBytes on every frame. */
export function webSocketTo(url: URL, config: RemoteServerConfig, maxMessageBytes: number, handshakeTimeoutMs: number): WebSocketClientTransport {
  return new WebSocketClientTransport(url, {
    ...(config.headers ? { headers: config.headers } : {}),
    maxMessageBytes,
    handshakeTimeoutMs,
  });
}

/**
 * A Streamable HTTP transport whose requests, when their response stream ends without a reply, fail with an
 * error of ours (fromTransport) instead of waiting out their timeout.
 */
export function streamableTo(
  url: URL,
  options: Omit<NonNullable<ConstructorParameters<typeof StreamableHTTPClientTransport>[1]>, "fetch" | "reconnectionOptions">,
  reconnection: StreamReconnection,
  fetch: FetchLike,
): StreamableHTTPClientTransport {
  const streamable: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(url, {
    ...options,
    reconnectionOptions: reconnection,
    fetch: watchResponseStreams((ids, how) => {
      for (const id of ids) {
        const error = { code: ProtocolErrorCode.InternalError, message: `the server's event stream ${how}`, data: { fromTransport: true, streamEnd: how } };
        streamable.onmessage?.({ jsonrpc: "2.0", id, error });
      }
    }, fetch),
  });
  return streamable;
}

/**
 * The reconnection options of one session's Streamable HTTP event stream, ours so that closing can stop the SDK
 * from scheduling reconnections that would keep toolbridge alive, and so that a stream cut at maxMessageBytes is
 * reopened later each time, and not at all after MAX_STREAM_CUTS.
 */
export class StreamReopening {
  private reconnection: StreamReconnection | undefined;
  /** How often this session's event stream was cut at maxMessageBytes. */
  private cuts = 0;

  /** Options for a new session's transports, the count of cuts started over. */
  fresh(): StreamReconnection {
    this.reconnection = { ...STREAM_RECONNECTION };
    this.cuts = 0;
    return this.reconnection;
  }

  /** The stream was cut: reopened later, or (returned) the line saying it no longer is, once. */
  cut(): string | undefined {
    const reconnection = this.reconnection;
    if (!reconnection || reconnection.maxRetries === 0) return undefined;
    this.cuts++;
    if (this.cuts < MAX_STREAM_CUTS) {
      reconnection.initialReconnectionDelay = Math.min(reconnection.initialReconnectionDelay * STREAM_CUT_BACKOFF, reconnection.maxReconnectionDelay);
      return undefined;
    }
    reconnection.maxRetries = 0;
    return `stopped reopening the server's event stream after ${MAX_STREAM_CUTS} cuts at maxMessageBytes: its notifications (list changes, logs) no longer arrive; calls still work`;
  }

  /** Ending the session ends its streams: the SDK must not schedule reconnections then. */
  stop(): void {
    if (this.reconnection) this.reconnection.maxRetries = 0;
  }
}

export async function closeTransport(transport: Transport): Promise<void> {
  await transport.close().catch(() => undefined);
}

/** Why a live connection ended, in a few words: how the process exited, or the limit a message passed. */
export function dropReason(transport: Transport | undefined, closeReason: string | undefined): string {
  if (closeReason !== undefined) return "a message over maxMessageBytes";
  if (transport instanceof ProcessGroupTransport) return transport.exit ?? "the process exited";
  return "the connection closed";
}
