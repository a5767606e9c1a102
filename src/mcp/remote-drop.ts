import { ProtocolError, SdkHttpError, SseError } from "@modelcontextprotocol/client";
import type { StreamEnd } from "./transport/cut-streams.js";

/** What a remote server's transport met, for remoteDropOf: the request's error or the stream's, and whether a session was held. */
export interface RemoteFailure {
  error: unknown;
  /** The Streamable HTTP session id the request carried: a 404 to it is the session's end (the spec's signal to initialize again). */
  hadSession: boolean;
}

/** The StreamEnd of a request whose event stream broke under it (the connection cut), as cut-streams' error carries it. */
const CUT: StreamEnd = "broke before the reply";

/**
 * Why a remote server's connection (Streamable HTTP or legacy SSE) is taken for dropped, in a few words for the
 * server's `dropped` ("server docs reconnected (connection refused), tools back"); undefined for a failure that
 * leaves the connection as it is (a refusal, an HTTP error of the server's, a timeout). Stdio and WebSocket
 * servers say so by closing their transport.
 */
export function remoteDropOf({ error, hadSession }: RemoteFailure): string | undefined {
  // undici's network errors: nothing came back on the connection, or it ended under the reply.
  if (error instanceof TypeError && error.message === "fetch failed") return networkWords(error.cause);
  if (error instanceof TypeError && error.message === "terminated") return "the connection was cut";
  if (error instanceof SdkHttpError && error.status === 404 && hadSession) return "the session ended (HTTP 404)";
  if (error instanceof ProtocolError && (error.data as { streamEnd?: unknown } | undefined)?.streamEnd === CUT) return "the connection was cut";
  // The legacy transport's one event stream, that carries every reply, failed: the session is gone with it.
  if (error instanceof SseError) return "the event stream ended";
  // The Streamable HTTP event stream that ended could not be opened again (the SDK says so in words only).
  const reopen = error instanceof Error ? /^Failed to reconnect SSE stream: (.*)$/s.exec(error.message) : null;
  if (reopen) return /\b404\b|Not Found/.test(reopen[1] ?? "") && hadSession ? "the session ended (HTTP 404)" : "the event stream could not be reopened";
  return undefined;
}

function networkWords(cause: unknown): string {
  const code = typeof (cause as { code?: unknown } | undefined)?.code === "string" ? (cause as { code: string }).code : undefined;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET" || code === "UND_ERR_CLOSED") return "the connection was cut";
  return `the network failed${code ? ` (${code})` : ""}`;
}
