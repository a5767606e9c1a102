import { connectionError, droppedError, httpError, isApiContentType, LlmError, notOpenAICompatible, retryAfterMs, serverMessageOf, streamError, timeoutError } from "./errors.js";
import { redirectSchemeErrorIn } from "./redirects.js";
import type { RequestControl } from "./request-control.js";

/**
 * The error classes of a Stainless-generated SDK (`openai`, `@anthropic-ai/sdk`): same
 * shapes, separate classes, so each adapter hands in its own.
 */
export interface StainlessErrors {
  APIError: abstract new (...args: never[]) => Error & { status?: number | undefined; error?: unknown; headers?: Headers | undefined };
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
}

export interface ErrorContext {
  control?: RequestControl;
  timeoutMs: number;
  /** How to start the server, for "nothing listens". */
  startHint?: string;
}

/** One place that turns whatever an SDK threw into an LlmError. */
export function fromSdkError(err: unknown, url: string, sdk: StainlessErrors, context: ErrorContext): LlmError {
  if (err instanceof LlmError) return err;
  const stopped = context.control?.stopReason();
  if (stopped) return stopped;
  if (redirectSchemeErrorIn(err)) return unreadable(err, url);
  if (err instanceof sdk.APIConnectionTimeoutError) return timeoutError(url, context.timeoutMs);
  if (err instanceof sdk.APIConnectionError) return connectionError(url, err.cause, context.startHint);
  if (err instanceof sdk.APIError) {
    const message = serverMessageOf(err.error) ?? err.message;
    // No status: the server's error came inside a stream that had begun.
    if (err.status === undefined) return streamError(url, message, err);
    const contentType = err.headers?.get("content-type");
    // The SDK keeps a body that is not JSON (a web page) as its message, after the status.
    if (!isApiContentType(contentType)) return notOpenAICompatible(url, contentType ?? "", err.status, err.message);
    return httpError(err.status, message, url, { cause: err, retryAfterMs: retryAfterMs(err.headers) });
  }
  return unreadable(err, url, context.startHint);
}

/** A plain fetch failure (SDKs without their own error classes), or an unreadable answer. */
export function unreadable(err: unknown, url: string, startHint?: string): LlmError {
  // The server answered, with a redirect nothing follows: not a server that cannot be reached.
  const redirect = redirectSchemeErrorIn(err);
  if (redirect) return new LlmError("bad-response", `The model server at ${url} cannot be used: ${redirect.message}`, { url, cause: err });
  if (err instanceof TypeError && /fetch failed/i.test(err.message)) return connectionError(url, err.cause, startHint);
  // undici's (and our body reader's) word for a body cut short; a damaged compressed body is unreadable indeed.
  if (err instanceof TypeError && err.message === "terminated" && !zlibFailure(err.cause)) return droppedError(url, err.cause);
  const message = err instanceof Error ? err.message : String(err);
  return new LlmError("bad-response", `The model server at ${url} sent something unreadable: ${message.replace(/\s+/g, " ")}`, {
    url,
    cause: err,
  });
}

function zlibFailure(cause: unknown): boolean {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && code.startsWith("Z_");
}
