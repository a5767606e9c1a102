import { abortedError, LlmError } from "./errors.js";
import type { StreamEvent } from "./types.js";

export interface RetryOptions {
  /** Further attempts after the first; 0 disables retrying. Default 2. */
  maxRetries?: number;
  /** First backoff delay; doubles on each attempt, with jitter. Default 1000 ms. */
  baseDelayMs?: number;
  /** Upper bound of one delay, also for a server's Retry-After. Default 20000 ms. */
  maxDelayMs?: number;
}

const DEFAULTS: Required<RetryOptions> = { maxRetries: 2, baseDelayMs: 1000, maxDelayMs: 20_000 };

/**
 * Runs a streamed request, retrying rate limits and server errors with backoff, but only
 * while nothing has been yielded: once output reached the caller a retry would repeat it.
 * Each retry is announced with a `retry` event before the wait, so no retry is silent.
 * `check` sees every event of an attempt before it is passed on, and may refuse it by
 * throwing (what the attempt itself throws): in this loop, not in one more generator, since
 * each generator in the chain costs every event of every answer a few promises.
 */
export async function* retryBeforeOutput(
  attempt: () => { events: AsyncIterable<StreamEvent>; check: (event: StreamEvent) => void },
  options: RetryOptions | undefined,
  url: string,
  signal?: AbortSignal,
): AsyncGenerator<StreamEvent> {
  const { maxRetries, baseDelayMs, maxDelayMs } = { ...DEFAULTS, ...options };
  for (let retry = 0; ; retry++) {
    let yielded = false;
    try {
      const { events, check } = attempt();
      for await (const event of events) {
        check(event);
        yielded = true;
        yield event;
      }
      return;
    } catch (err) {
      if (yielded || !(err instanceof LlmError) || !err.retryable || retry >= maxRetries) throw err;
      const backoff = baseDelayMs * 2 ** retry * (0.75 + Math.random() * 0.5);
      const delayMs = Math.min(maxDelayMs, err.details.retryAfterMs ?? backoff);
      yield { type: "retry", attempt: retry + 1, maxRetries, reason: retryReason(err), delayMs };
      await sleep(delayMs, url, signal);
    }
  }
}

function retryReason(err: LlmError): string {
  return err.details.status !== undefined ? `HTTP ${err.details.status}` : err.code;
}

function sleep(ms: number, url: string, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError(url));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(url));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
