import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import type { TurnError } from "../agent/events.js";
import { JsonDepthScan, tooDeep } from "../mcp/json-depth.js";
import { errorBody } from "./openai-wire.js";

/** An answer in OpenAI's error format: `{error: {message, type, param, code}}`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly code: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * A failed turn as the error a whole answer gets: content the model cannot take (a PDF for a
 * server without file parts) is the request's, a 400 with the adapter's line; else the upstream failed (502).
 */
export function turnFailure(error: TurnError | undefined): HttpError {
  if (error?.code === "unsupported-content") return new HttpError(400, error.message, "invalid_request_error", error.code);
  return new HttpError(502, `Upstream model failed: ${error?.message ?? "the turn failed"}`, "upstream_error", error?.code ?? null);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** An error body in a wire format's shape; OpenAI's by default. */
export type ErrorShape = (error: HttpError) => unknown;

export function sendError(res: ServerResponse, error: HttpError, shape: ErrorShape = (e) => errorBody(e.message, e.type, e.code)): void {
  sendJson(res, error.status, shape(error), error.headers);
}

/** How long a client may take to send its whole body. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;
/**
 * How deeply a request body may nest. A request's own shapes stay within a dozen levels and a
 * tool's schema within a few dozen; a body of 8 MiB nested 500 deep held the event loop 3.4 s.
 */
export const MAX_REQUEST_DEPTH = 128;

const bodies = new WeakMap<IncomingMessage, Promise<unknown>>();

/**
 * The JSON body, read once: a second call for the same request gets the same body (the server
 * reads it before the route runs, so that a slow sender holds a connection, not a slot).
 * Refused with 415 unless sent as application/json (a page elsewhere can send text/plain
 * without asking the browser first), 413 past `maxBytes` (before reading when Content-Length
 * says so), 408 when it takes longer than `timeoutMs`, 400 once nested past MAX_REQUEST_DEPTH:
 * size and depth are checked as each piece arrives, so reading stops there, before any parsing.
 */
export function readJsonBody(req: IncomingMessage, maxBytes: number, timeoutMs = DEFAULT_BODY_TIMEOUT_MS): Promise<unknown> {
  let body = bodies.get(req);
  if (body === undefined) {
    body = readBody(req, maxBytes, timeoutMs);
    bodies.set(req, body);
  }
  return body;
}

async function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<unknown> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    throw new HttpError(415, `The request body must be sent as Content-Type: application/json (not ${type || "none"})`, "invalid_request_error", "unsupported_media_type");
  }
  const declared = Number(req.headers["content-length"]);
  const tooLarge = () => new HttpError(413, `Request body larger than ${maxBytes} bytes (gateway.maxRequestBytes)`, "invalid_request_error", "request_too_large", { connection: "close" });
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const depth = new JsonDepthScan(MAX_REQUEST_DEPTH);
  const bytes = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (error?: HttpError) => {
      clearTimeout(timer);
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      if (error) {
        // What is left of the body is not read; the connection ends with the answer.
        req.pause();
        reject(error);
      }
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) stop(tooLarge());
      // JSON.parse and every walk after it would take seconds over a body made of brackets.
      else if (depth.deeperAfter(chunk)) stop(new HttpError(400, tooDeep("The request body", MAX_REQUEST_DEPTH), "invalid_request_error", "request_too_deep", { connection: "close" }));
      else chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const onError = () => stop(new HttpError(400, "The request body could not be read", "invalid_request_error"));
    const onClose = () => stop(new HttpError(400, "The client closed the connection before sending its whole body", "invalid_request_error"));
    const timer = setTimeout(
      () => stop(new HttpError(408, `The request body took longer than ${timeoutMs} ms to arrive`, "invalid_request_error", "request_timeout", { connection: "close" })),
      timeoutMs,
    );
    req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new HttpError(400, "The request body is not valid JSON", "invalid_request_error");
  }
}

/** A request body read against its schema; a 400 naming the first field at fault when it does not fit. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new HttpError(400, `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`, "invalid_request_error");
}
