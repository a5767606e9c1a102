import { SdkError, SdkErrorCode, SdkHttpError, UnsupportedProtocolVersionError } from "@modelcontextprotocol/client";
import type { PriorDiscovery } from "@modelcontextprotocol/client";

/**
 * How long a stdio server gets to answer the server/discover probe (2026-07-28) before it is taken
 * for a 2025 server that ignores requests before initialize; at most half its startup time. A slow
 * 2025 server loses nothing (it answers initialize after the probe); only a slow 2026-only one would.
 */
export const PROBE_TIMEOUT_MS = 5000;
/** For a server known to speak 2025-11-25 only: initialize, no probe. */
export const LEGACY: PriorDiscovery = { kind: "legacy" };
export const LEGACY_VERSION = "2025-11-25";
export const MODERN = "2026-07-28";

/** The server refused initialize and named only `version`, a revision reached by server/discover alone. */
export function refusedAllBut(error: unknown, version: string): boolean {
  return error instanceof UnsupportedProtocolVersionError && error.supported.length > 0 && error.supported.every((named) => named === version);
}

/** v2's verdict when a server probed in place closed the connection during server/discover. */
export function exitedOnProbe(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed && /closed during the server\/discover probe/.test(error.message);
}

/** v2's verdict when an HTTP server answered the server/discover probe with a 5xx (it falls back to initialize on a 4xx). */
export function probeFailedOnServer(error: unknown): boolean {
  return error instanceof SdkHttpError && error.code === SdkErrorCode.EraNegotiationFailed && error.status >= 500 && error.message.startsWith("Version negotiation failed");
}

/**
 * What went wrong under v2's "version negotiation failed" when the server/discover probe met a
 * network error (its cause) or an HTTP error (its body), as the same request would say without the probe.
 */
export function probeFailure(error: unknown): unknown {
  // A 401 or 403 to the probe comes with its own codes, but the same "Version negotiation failed" wording.
  const fromProbe = error instanceof SdkError && (error.code === SdkErrorCode.EraNegotiationFailed || (error instanceof SdkHttpError && error.message.startsWith("Version negotiation failed")));
  if (!fromProbe) return error;
  if (error instanceof SdkHttpError && typeof error.data.text === "string" && error.data.text) {
    return new SdkHttpError(error.code, `Error POSTing to endpoint: ${error.data.text}`, error.data);
  }
  return error.cause instanceof Error && !(error instanceof SdkHttpError) ? error.cause : error;
}
