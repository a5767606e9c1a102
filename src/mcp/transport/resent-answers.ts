import type { FetchLike } from "@modelcontextprotocol/client";

/** How fetch (undici) fails a request whose connection the server closed before it answered. */
const CLOSED_UNDER_US = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"]);

/**
 * A fetch that posts once more an answer to a server's request whose connection was closed before anything came
 * back. A Streamable HTTP server closes a kept-alive connection once it has idled its keep-alive (Node's 5 s,
 * uvicorn's 5 s); an answer written to it just then is lost, and fetch does not send a POST again, so the server
 * waits for that answer for good (64 of a flood of 2,000 were lost so). Node's documentation advises sending such a
 * request again, as src/llm/http-fetch.ts does for a model server; here only a POST that carries nothing but answers
 * is: an answer to a request the server already made is the same whether it arrives once or twice (a server drops
 * the answer to an id it no longer waits for), while a request of ours (a tool call) may have been acted on before
 * its connection broke. Answers are not held back to a few at a time instead: that would make the loss rarer,
 * not impossible, as any reused connection may be closed under a request.
 */
export function resentAnswers(base: FetchLike): FetchLike {
  return async (url, init) => {
    try {
      return await base(url, init);
    } catch (error) {
      if (init?.signal?.aborted || !closedUnderUs(error) || !onlyAnswers(init)) throw error;
      return base(url, init);
    }
  };
}

/** Whether the chain of causes (fetch wraps the socket's error in a "fetch failed") holds a closed connection. */
function closedUnderUs(error: unknown): boolean {
  for (let depth = 0; depth < 5 && error instanceof Error; depth++, error = error.cause) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && CLOSED_UNDER_US.has(code)) return true;
  }
  return false;
}

/** Whether a POST's body (the SDK sends a string) holds JSON-RPC answers only: results and errors, no method. */
function onlyAnswers(init: RequestInit | undefined): boolean {
  if (init?.method !== "POST" || typeof init.body !== "string") return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(init.body);
  } catch {
    return false;
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages.length > 0 && messages.every((message: unknown) => typeof message === "object" && message !== null && !("method" in message) && "id" in message && ("result" in message || "error" in message));
}
