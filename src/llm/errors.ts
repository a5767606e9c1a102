/**
 * Errors from a model server, as values the agent and CLI can act on. Made in the
 * provider adapters, printed by the CLI as `message` (one line).
 */
export type LlmErrorCode =
  /** Nothing listens at the URL (ECONNREFUSED, DNS failure). */
  | "connection"
  /** The server answered with an HTTP error status. */
  | "http"
  /** The server refuses the `tools` field (e.g. vLLM without --enable-auto-tool-choice). */
  | "tools-unsupported"
  | "timeout"
  | "aborted"
  /** The server answered, but not with anything we can read. */
  | "bad-response";

export class LlmError extends Error {
  override readonly name = "LlmError";
  constructor(
    readonly code: LlmErrorCode,
    message: string,
    readonly details: { status?: number; url?: string; cause?: unknown } = {},
  ) {
    super(message, { cause: details.cause });
  }
}
