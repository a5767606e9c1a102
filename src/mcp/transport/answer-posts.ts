import type { FetchLike } from "@modelcontextprotocol/client";

/**
 * How many answers to one server's requests are posted at once. Fetch (undici) opens a connection per request under
 * way, so a flood of 2,000 requests answered at once opened 2,000 connections (a file descriptor each, on both
 * sides), all left idle together; browsers hold HTTP/1.1 to 6 per origin for the same reason.
 */
export const ANSWERS_AT_ONCE = 8;

/** How fetch (undici) fails a request whose connection the server closed before it answered. */
const CLOSED_UNDER_US = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"]);

/**
 * A fetch for the POSTs that carry nothing but answers to a server's requests: a few at a time (ANSWERS_AT_ONCE),
 * and once more when the connection was closed before anything came back. A Streamable HTTP server closes a
 * kept-alive connection once it has idled its keep-alive (Node's 5 s, uvicorn's 5 s); an answer written to it just
 * then is lost, and fetch does not send a POST again, so the server waits for it for good (64 of a flood of 2,000
 * were lost so). Node's documentation advises sending such a request again, as src/llm/http-fetch.ts does for a
 * model server. Both are needed: fewer connections make that race rarer, only the resend closes it. Only answers are
 * sent again: one to a request the server made is the same whether it arrives once or twice (a server drops the
 * answer to an id it no longer waits for), while a request of ours (a tool call) may have been acted on before its
 * connection broke. Other requests pass at once: a tool call's stream may stay open for minutes.
 */
export function answerPosts(base: FetchLike): FetchLike {
  const slots = new Slots(ANSWERS_AT_ONCE);
  return async (url, init) => {
    if (!onlyAnswers(init)) return base(url, init);
    await slots.take(init?.signal ?? undefined);
    // A slot is held until the answer's head arrives: a server's 202 has no body to wait for.
    try {
      return await base(url, init);
    } catch (error) {
      if (init?.signal?.aborted || !closedUnderUs(error)) throw error;
      return await base(url, init);
    } finally {
      slots.give();
    }
  };
}

/** A count of requests under way, and those waiting for one of them to end, first come first served. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(count: number) {
    this.free = count;
  }

  /** Until a slot is this caller's, or the signal aborts (which rejects with its reason, and takes none). */
  take(signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const granted = (): void => {
        signal?.removeEventListener("abort", aborted);
        resolve();
      };
      const aborted = (): void => {
        this.waiting.splice(this.waiting.indexOf(granted), 1);
        reject(signal?.reason);
      };
      this.waiting.push(granted);
      signal?.addEventListener("abort", aborted, { once: true });
    });
  }

  /** A slot handed to the first waiting, or freed. */
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
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
