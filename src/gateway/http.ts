import type { IncomingMessage, ServerResponse } from "node:http";
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

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** An error body in a wire format's shape; OpenAI's by default. */
export type ErrorShape = (error: HttpError) => unknown;

export function sendError(res: ServerResponse, error: HttpError, shape: ErrorShape = (e) => errorBody(e.message, e.type, e.code)): void {
  sendJson(res, error.status, shape(error), error.headers);
}

/** The JSON body, refused with 413 past `maxBytes` (before reading it all when Content-Length says so). */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = Number(req.headers["content-length"]);
  const tooLarge = () => new HttpError(413, `Request body larger than ${maxBytes} bytes (gateway.maxRequestBytes)`, "invalid_request_error", "request_too_large");
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, "The request body is not valid JSON", "invalid_request_error");
  }
}
