import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { HubError } from "./errors.js";
import { MessageTooLargeError } from "./limits.js";

/** Whether a request failed because the server's connection dropped under it (not a refusal, a timeout or a close of ours). */
export function droppedDuring(error: unknown): error is HubError {
  return error instanceof HubError && error.code === "server-unavailable" && isConnectionClosed(error.cause);
}

export function isConnectionClosed(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed;
}

export function isFromTransport(data: unknown): boolean {
  return typeof data === "object" && data !== null && "fromTransport" in data;
}

/** The limit's line, from our error or from the JSON-RPC error that replaced a reply on a POST stream. */
export function tooLargeMessage(error: unknown): string | undefined {
  if (error instanceof MessageTooLargeError) return error.message;
  if (error instanceof Error && error.cause instanceof MessageTooLargeError) return error.cause.message;
  if (error instanceof ProtocolError && typeof (error.data as { maxMessageBytes?: unknown } | undefined)?.maxMessageBytes === "number") {
    return error.message.replace(/^MCP error -?\d+: /, "");
  }
  return undefined;
}

/**
 * Whether a call's timeout was its total cap: the SDK's maxTotalTimeout, or the idle timeout
 * when the cap was below it and stood in for it (`idleWasCap`).
 */
export function isTotalTimeout(error: unknown, idleWasCap: boolean): boolean {
  const cause = error instanceof HubError ? error.cause : error;
  if (!(cause instanceof SdkError) || cause.code !== SdkErrorCode.RequestTimeout) return false;
  return idleWasCap || typeof (cause.data as { maxTotalTimeout?: unknown } | undefined)?.maxTotalTimeout === "number";
}
