import type { FetchLike } from "@modelcontextprotocol/client";
import { schemeCheckedFetch } from "../../llm/redirects.js";
import { eventFramingStream, isEventStream } from "../../llm/sse-framing.js";
import { MessageTooLargeError } from "../limits.js";

export interface LimitedFetchOptions {
  maxMessageBytes: number;
  /**
   * A stream that carries no reply of ours went over the limit (the standalone GET stream of
   * Streamable HTTP, the one stream of legacy SSE): the caller decides what else to do.
   */
  onOversizedStream: (error: MessageTooLargeError) => void;
  fetch?: FetchLike;
}

/**
 * The fetch handed to the SDK's HTTP transports: it bounds every message it passes on by
 * counting the decoded bytes (after gzip), and stops reading at the limit.
 * - A JSON reply larger than the limit rejects the SDK's read of it, so the request fails
 *   with the error at once (at once when Content-Length says so).
 * - An event stream is cut into whole events and bounded per event: a reply of ours on a POST
 *   stream is replaced by a JSON-RPC error answering our request, so it fails at once rather
 *   than at its timeout; any other stream fails.
 */
export function limitedFetch(options: LimitedFetchOptions): FetchLike {
  const { maxMessageBytes: limit } = options;
  const base = options.fetch ?? schemeCheckedFetch();
  return async (url, init) => {
    const response = await base(url, init);
    if (!response.body) return response;
    if (isEventStream(response)) {
      const ids = requestIds(init);
      const framing = eventFramingStream({
        maxEventBytes: limit,
        onOversized: (bytes) => {
          const error = new MessageTooLargeError(bytes, limit, false);
          if (ids.length > 0) return errorEvent(ids, error);
          options.onOversizedStream(error);
          return error;
        },
      });
      return rebuild(response, response.body.pipeThrough(framing));
    }
    const declared = Number(response.headers.get("content-length"));
    // Declared lengths count encoded bytes; the decoded ones are counted below in any case.
    if (declared > limit && !response.headers.has("content-encoding")) {
      await response.body.cancel().catch(() => undefined);
      throw new MessageTooLargeError(declared, limit);
    }
    return rebuild(response, response.body.pipeThrough(byteLimit(limit)));
  };
}

function byteLimit(limit: number): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.length;
      if (total > limit) controller.error(new MessageTooLargeError(total, limit, false));
      else controller.enqueue(chunk);
    },
  });
}

function rebuild(response: Response, body: ReadableStream<Uint8Array>): Response {
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The ids of the JSON-RPC requests a POST carries: the SDK sends its body as a string. */
function requestIds(init: RequestInit | undefined): (string | number)[] {
  if (init?.method !== "POST" || typeof init.body !== "string") return [];
  try {
    const parsed: unknown = JSON.parse(init.body);
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((message: unknown) => {
      if (typeof message !== "object" || message === null || !("method" in message) || !("id" in message)) return [];
      const id = (message as { id: unknown }).id;
      return typeof id === "string" || typeof id === "number" ? [id] : [];
    });
  } catch {
    return [];
  }
}

/** One SSE event per request answering it with a JSON-RPC error that carries the limit. */
function errorEvent(ids: (string | number)[], error: MessageTooLargeError): Uint8Array {
  const events = ids.map((id) => {
    const message = {
      jsonrpc: "2.0",
      id,
      error: { code: -32603, message: error.message, data: { maxMessageBytes: error.limit } },
    };
    return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
  });
  // The oversized event was held back whole, so the reader stands between events.
  return new TextEncoder().encode(events.join(""));
}
