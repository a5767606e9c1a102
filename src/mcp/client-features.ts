import { ProtocolError, UrlElicitationRequiredError, ProtocolErrorCode } from "@modelcontextprotocol/client";
import { CreateMessageRequestParamsSchema, ElicitRequestParamsSchema } from "@modelcontextprotocol/core";
import type { Client, ClientCapabilities, ElicitRequestParams, ElicitResult, LoggingLevel, StandardSchemaV1 } from "@modelcontextprotocol/client";
import { nestedDeeperThan, tooDeep } from "./json-depth.js";
import type { ClientHandlers, HubEvent, Root, UrlElicitationHandler } from "./types.js";

/**
 * The client side of MCP: what the hub declares at initialize and how it answers a server's
 * requests (roots, sampling, elicitation) and notifications (log messages, finished URL
 * elicitations). Policy and people stay outside: the answers come from the handlers.
 */
export interface ClientFeatures {
  server: string;
  handlers: ClientHandlers;
  /** Undefined: the hub declares no roots. */
  roots: (() => Root[]) | undefined;
  emit: (event: HubEvent) => void;
  /** The server's process id, for log lines. */
  pid: () => number | undefined;
  log: (line: string) => void;
  /** Messages below this level are dropped even if the server sends them. */
  logLevel: LoggingLevel;
}

export function clientCapabilities(features: Pick<ClientFeatures, "handlers" | "roots">): ClientCapabilities {
  const { onElicitation, onUrlElicitation, onSampling } = features.handlers;
  const capabilities: ClientCapabilities = {};
  if (features.roots) capabilities.roots = { listChanged: true };
  if (onSampling) capabilities.sampling = { tools: {} };
  if (onElicitation || onUrlElicitation) {
    capabilities.elicitation = {
      ...(onElicitation ? { form: { applyDefaults: true } } : {}),
      ...(onUrlElicitation ? { url: {} } : {}),
    };
  }
  return capabilities;
}

export function registerClientFeatures(client: Client, features: ClientFeatures): void {
  const { server, handlers } = features;
  const roots = features.roots;
  if (roots) client.setRequestHandler('roots/list', () => ({ roots: roots() }));
  const { onElicitation, onUrlElicitation, onSampling } = handlers;
  if (onElicitation || onUrlElicitation) {
    client.setRequestHandler('elicitation/create', (request, ctx) => elicit(features, request.params, ctx.mcpReq.signal));
  }
  if (onSampling) {
    client.setRequestHandler('sampling/createMessage', (request, ctx) => onSampling(request.params, { server, signal: ctx.mcpReq.signal }));
  }
  client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
    features.emit({ type: "elicitation-complete", server, elicitationId: notification.params.elicitationId });
  });
  client.setNotificationHandler('notifications/message', (notification) => {
    const { level, logger, data } = notification.params;
    if (severity(level) < severity(features.logLevel)) return;
    const text = logText(data);
    const pid = features.pid();
    features.log(`${pid !== undefined ? `pid ${pid} ` : ""}${level}${logger ? ` ${logger}` : ""}: ${text}`);
    features.emit({ type: "log", server, level, text, ...(pid !== undefined ? { pid } : {}), ...(logger !== undefined ? { logger } : {}) });
  });
}

function elicit(features: Pick<ClientFeatures, "server" | "handlers">, params: ElicitRequestParams, signal: AbortSignal): Promise<ElicitResult> {
  const { onElicitation, onUrlElicitation } = features.handlers;
  if (params.mode === "url") {
    if (!onUrlElicitation) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "URL-mode elicitation is not supported");
    return onUrlElicitation(params, features.server, signal);
  }
  if (!onElicitation) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "form-mode elicitation is not supported");
  return onElicitation(params, features.server, signal);
}

/**
 * Answers a request a server sent inside a result (a task's `inputRequests`) as the handlers registered on the
 * Client answer the same request sent on its own; its params are checked with the SDK's schemas first.
 */
export function answerInputRequest(features: Pick<ClientFeatures, "server" | "handlers" | "roots">) {
  return async (request: { method: string; params?: Record<string, unknown> }, signal: AbortSignal | undefined): Promise<Record<string, unknown>> => {
    const never = signal ?? new AbortController().signal;
    const { onElicitation, onUrlElicitation, onSampling } = features.handlers;
    if (request.method === "roots/list" && features.roots) return { roots: features.roots() };
    if (request.method === "elicitation/create" && (onElicitation || onUrlElicitation)) {
      return elicit(features, checked(ElicitRequestParamsSchema, request), never);
    }
    if (request.method === "sampling/createMessage" && onSampling) {
      return onSampling(checked(CreateMessageRequestParamsSchema, request), { server: features.server, signal: never });
    }
    throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `the client does not answer ${request.method}`);
  };
}

function checked<T extends StandardSchemaV1>(schema: T, request: { method: string; params?: unknown }): StandardSchemaV1.InferOutput<T> {
  const result = schema["~standard"].validate(request.params ?? {});
  if (result instanceof Promise || result.issues) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `invalid ${request.method} params in a task's inputRequests`);
  return result.value;
}

/** Asks a server that logs to send messages of `level` and above; a refusal is only logged. */
export async function applyLogLevel(client: Client, level: LoggingLevel, timeoutMs: number, log: (line: string) => void): Promise<void> {
  if (!client.getServerCapabilities()?.logging) return;
  await client.setLoggingLevel(level, { timeout: timeoutMs }).catch((error: unknown) => {
    log(`logging/setLevel ${level} failed: ${error instanceof Error ? error.message : String(error)}`);
  });
}

export const DEFAULT_LOG_LEVEL: LoggingLevel = "warning";

const LEVELS: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

function severity(level: LoggingLevel): number {
  return LEVELS.indexOf(level);
}

/** A log message's data as one bounded line. */
const MAX_LOG_TEXT = 2000;
function logText(data: unknown): string {
  let text: string;
  try {
    text = typeof data === "string" ? data : nestedDeeperThan(data) ? tooDeep("(data)") : (JSON.stringify(data) ?? String(data));
  } catch {
    text = String(data);
  }
  text = text.replace(/\s*\n\s*/g, " ");
  return text.length > MAX_LOG_TEXT ? `${text.slice(0, MAX_LOG_TEXT)}…` : text;
}

/** The spec's answer to a sampling request the user (or the user's policy) refused. */
export function samplingRejected(message = "User rejected sampling request"): ProtocolError {
  return new ProtocolError(-1, message);
}

/** At most this many URLs of one URLElicitationRequiredError are shown; a server asking for more is refused. */
const MAX_URL_ELICITATIONS = 3;

/**
 * A request the server refused with URLElicitationRequiredError (-32042): each URL goes to the
 * handler (shown, opened with consent), and when every one was accepted the request is made
 * once more. Without a handler, or with one declined, the server's error stands.
 */
export function withUrlElicitations<T>(run: () => Promise<T>, handler: UrlElicitationHandler | undefined, server: string): Promise<T> {
  // The answer passes as it is, with no async step of ours; only a failure is looked at.
  return run().catch(async (error: unknown) => {
    if (!handler || !(error instanceof UrlElicitationRequiredError) || error.elicitations.length > MAX_URL_ELICITATIONS) throw error;
    for (const elicitation of error.elicitations) {
      if ((await handler(elicitation, server)).action !== "accept") throw error;
    }
    return run();
  });
}
