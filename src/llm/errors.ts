import { redactSecrets, redactUrl } from "../config/redact.js";
import { parseContextOverflow, type ContextOverflow } from "./context-overflow.js";

/**
 * Errors from a model server, as values the agent and CLI can act on. Made in the
 * provider adapters (through the constructors below, so the wording lives in one place),
 * printed by the CLI as `message` (one line).
 */
export type LlmErrorCode =
  /** Nothing listens at the URL (ECONNREFUSED, DNS failure). */
  | "connection"
  /** The server answered with an HTTP error status. */
  | "http"
  /** The server refuses the `tools` field (e.g. vLLM without --enable-auto-tool-choice). */
  | "tools-unsupported"
  /** The request is longer than the model's context (details.overflow has the numbers the server gave). */
  | "context-length"
  | "timeout"
  | "aborted"
  /** The server answered, but not with anything we can read. */
  | "bad-response"
  /** The answer, or one event of its stream, passed its size limit (llm.maxAnswerChars). */
  | "too-large"
  /** The llm settings cannot work as given (no model named, no API key, unknown provider). */
  | "config"
  /** Provider local, and llama.cpp's runtime (node-llama-cpp) is not installed. */
  | "runtime-missing"
  /** The request holds content the provider cannot take (audio where it takes none, or not in that format). */
  | "unsupported-content";

export class LlmError extends Error {
  override readonly name = "LlmError";
  constructor(
    readonly code: LlmErrorCode,
    message: string,
    readonly details: { status?: number; url?: string; cause?: unknown; retryAfterMs?: number; overflow?: ContextOverflow } = {},
  ) {
    // The one place every model error is made: secrets in URLs, and a key a server echoes, stop here.
    super(redactSecrets(message), { cause: details.cause });
    if (details.url !== undefined) this.details = { ...details, url: redactUrl(details.url) };
  }

  /** Worth another attempt: rate limits and server-side failures, but not a server saying it cannot do this at all. */
  get retryable(): boolean {
    const status = this.details.status;
    return this.code === "http" && status !== undefined && (status === 429 || status === 408 || (status >= 500 && !NEVER_RETRIED.has(status)));
  }
}

/** 501 Not Implemented, 505 HTTP Version Not Supported: asking again gets the same answer. */
const NEVER_RETRIED = new Set([501, 505]);

/** The way on when the local model cannot run (no runtime, no model file to be had). */
export const MODEL_SERVER_INSTEAD = "a model server instead (--base-url URL, without --provider local)";

/** How to start a local server, for the one-line "nothing listens" error. */
export const START_LOCAL_SERVER_HINT =
  "start one with `vllm serve MODEL --enable-auto-tool-choice --tool-call-parser hermes` or `ollama serve`";

export function connectionError(url: string, cause: unknown, startHint?: string): LlmError {
  const reason = describeNetworkCause(cause);
  // Starting a server is advice only for one on this machine; a URL with credentials is someone else's.
  const hint = startHint && isLocalWithoutCredentials(url) ? `; ${startHint}` : "";
  return new LlmError("connection", `Cannot reach the model server at ${url} (${reason})${hint}.`, { url, cause });
}

/**
 * Servers that cannot do native tool calling say so in a 400 with their own words:
 * vLLM started without a tool parser, llama.cpp without --jinja, Ollama for models
 * whose template has no tools.
 */
const TOOLS_REFUSED = [
  /tool choice requires --enable-auto-tool-choice/i,
  /--tool-call-parser/i,
  /tools param requires --jinja/i,
  /does not support tools/i,
  /tools? (?:are|is) not supported/i,
  /tool[_ ]choice[^.]*not supported/i,
];

export function httpError(
  status: number,
  serverMessage: string | undefined,
  url: string,
  extra: { cause?: unknown; retryAfterMs?: number } = {},
): LlmError {
  const said = serverMessage ? oneLine(serverMessage) : "no message";
  if (status === 400 && serverMessage && TOOLS_REFUSED.some((re) => re.test(serverMessage))) {
    return new LlmError(
      "tools-unsupported",
      `The model server at ${url} refuses native tool calling: ${said}. For vLLM add --enable-auto-tool-choice --tool-call-parser hermes (or the parser for your model), or use prompt-based tool calling.`,
      { status, url, ...extra },
    );
  }
  const overflow = status >= 400 && status < 500 && serverMessage ? parseContextOverflow(serverMessage) : undefined;
  if (overflow) {
    const numbers = overflow.limit === undefined ? "" : ` of ${overflow.limit} tokens${overflow.requested === undefined ? "" : ` (${overflow.requested} requested)`}`;
    return new LlmError("context-length", `The conversation is longer than the model's context${numbers}; the model server at ${url} said: ${said}`, { status, url, overflow, ...extra });
  }
  return new LlmError("http", `The model server at ${url} answered HTTP ${status}: ${said}`, { status, url, ...extra });
}

/**
 * A server that answers a web page (a proxy's error page, a web app at the wrong URL) is not
 * the API we want; its HTML is not a message anyone should read in a terminal.
 */
export function notOpenAICompatible(url: string, contentType: string, status?: number, body?: string): LlmError {
  const type = contentType.split(";")[0]!.trim() || "no content type";
  const title = body === undefined ? undefined : pageTitle(body);
  const what = title ? `${type} "${title}"` : type;
  const message = `not an OpenAI-compatible API (got ${what} from ${url}${status !== undefined && status >= 400 ? `, HTTP ${status}` : ""}); check the base URL (--base-url)`;
  return new LlmError(status !== undefined && status >= 400 ? "http" : "bad-response", message, { url, ...(status !== undefined ? { status } : {}) });
}

/** JSON and event streams are what an OpenAI-compatible server sends; anything else (HTML above all) is not one. */
export function isApiContentType(contentType: string | null | undefined): boolean {
  return contentType === null || contentType === undefined || contentType === "" || /json|event-stream/i.test(contentType);
}

export function timeoutError(url: string, ms: number): LlmError {
  return new LlmError("timeout", `The model server at ${url} sent nothing for ${ms} ms; the request was given up.`, { url });
}

export function abortedError(url: string): LlmError {
  return new LlmError("aborted", "The request to the model was cancelled.", { url });
}

export function streamError(url: string, serverMessage: string | undefined, cause?: unknown): LlmError {
  return new LlmError(
    "bad-response",
    `The model server at ${url} reported an error mid-stream: ${serverMessage ? oneLine(serverMessage) : "no message"}`,
    { url, cause },
  );
}

/** The connection closed (or was reset) while the answer was being read. */
export function droppedError(url: string, cause: unknown): LlmError {
  return new LlmError("bad-response", `The model server at ${url} closed the connection mid-answer (${describeNetworkCause(cause)}).`, { url, cause });
}

export function truncatedError(url: string): LlmError {
  return new LlmError("bad-response", `The model server at ${url} ended the stream before the answer was finished.`, { url });
}

export function configError(message: string): LlmError {
  return new LlmError("config", message);
}

/**
 * The human message inside an error body, whatever its shape: OpenAI `{"error":{"message"}}`,
 * vLLM's older `{"object":"error","message"}`, Ollama's `{"error":"..."}`, Anthropic's
 * `{"type":"error","error":{...}}`, Google's `{"error":{"code","message","status"}}`, FastAPI's `{"detail"}`.
 */
export function serverMessageOf(body: unknown): string | undefined {
  if (typeof body === "string") return body.trim() || undefined;
  if (!body || typeof body !== "object") return undefined;
  const record = body as Record<string, unknown>;
  for (const key of ["error", "message", "detail"]) {
    const found = serverMessageOf(record[key]);
    if (found) return found;
  }
  return undefined;
}

/** A Retry-After header (seconds or an HTTP date) in milliseconds. */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined): number | undefined {
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The most characters of a server's own words an error quotes. */
export const MAX_QUOTED_CHARS = 400;

/** A server's (or library's) words on one line, cut at MAX_QUOTED_CHARS. */
export function oneLine(text: string): string {
  const line = text.slice(0, MAX_QUOTED_CHARS * 4).replace(/\s+/g, " ").trim();
  return line.length > MAX_QUOTED_CHARS ? `${line.slice(0, MAX_QUOTED_CHARS)}… (cut)` : line;
}

/** An HTML page's title (or first heading), for a one-line summary; undefined when it has none. */
function pageTitle(html: string): string | undefined {
  const found = /<title[^>]*>([^<]*)<\/title>/i.exec(html) ?? /<h1[^>]*>([^<]*)<\/h1>/i.exec(html);
  const title = found?.[1]?.replace(/\s+/g, " ").trim();
  return title ? title.slice(0, 80) : undefined;
}

function isLocalWithoutCredentials(url: string): boolean {
  try {
    const { hostname, username, password } = new URL(url);
    return !username && !password && /^(localhost|127(\.\d+){3}|\[::1\])$/.test(hostname);
  } catch {
    return false;
  }
}

/** Why a connection failed, in a few words ("connection refused", "host not found"). */
export function describeNetworkCause(cause: unknown): string {
  let current: unknown = cause;
  // fetch wraps the socket error: TypeError("fetch failed") { cause: Error { code: "ECONNREFUSED" } }
  for (let depth = 0; depth < 5 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (code === "ECONNREFUSED") return "connection refused";
    if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "host not found";
    if (code === "ECONNRESET") return "connection reset";
    if (typeof code === "string" && code.startsWith("E")) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return cause instanceof Error ? oneLine(cause.message) : "network error";
}
