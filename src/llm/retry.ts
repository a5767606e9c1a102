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
 * while nothing has been passed on: once output reached the caller a retry would repeat it.
 * Each retry is announced with a `retry` event before the wait, so no retry is silent.
 * `check` sees every event of an attempt before it is passed on, and may refuse it by
 * throwing (as if the attempt had thrown; the attempt is closed). The attempt's own iterator
 * is read through, not wrapped in one more generator: each generator in the chain costs every
 * event of every answer a few promises.
 */
export function retryBeforeOutput(
  attempt: () => { events: AsyncIterable<StreamEvent>; check: (event: StreamEvent) => void },
  options: RetryOptions | undefined,
  url: string,
  signal?: AbortSignal,
): AsyncIterableIterator<StreamEvent> {
  const { maxRetries, baseDelayMs, maxDelayMs } = { ...DEFAULTS, ...options };
  let retry = 0;
  /** The attempt being read; undefined before each. */
  let current: { events: AsyncIterator<StreamEvent>; check: (event: StreamEvent) => void } | undefined;
  /** The current attempt passed something on. */
  let yielded = false;
  /** A retry was announced: the wait before the next attempt. */
  let delay: number | undefined;
  let over = false;
  const end = (): IteratorResult<StreamEvent> => ({ done: true, value: undefined });

  const failed = (err: unknown): IteratorResult<StreamEvent> => {
    current = undefined;
    if (yielded || !(err instanceof LlmError) || !err.retryable || retry >= maxRetries) {
      over = true;
      throw err;
    }
    const backoff = baseDelayMs * 2 ** retry * (0.75 + Math.random() * 0.5);
    const delayMs = Math.min(maxDelayMs, err.details.retryAfterMs ?? backoff);
    retry++;
    delay = delayMs;
    return { done: false, value: { type: "retry", attempt: retry, maxRetries, reason: retryReason(err), delayMs } };
  };

  const read = (): Promise<IteratorResult<StreamEvent>> => {
    if (current === undefined) {
      try {
        const made = attempt();
        current = { events: made.events[Symbol.asyncIterator](), check: made.check };
      } catch (err) {
        return Promise.resolve().then(() => failed(err));
      }
      yielded = false;
    }
    const { events, check } = current;
    return events.next().then((result) => {
      if (result.done === true) {
        over = true;
        current = undefined;
        return end();
      }
      try {
        check(result.value);
      } catch (err) {
        // As a loop's body throwing would: the attempt is closed first, and the refusal is what counts.
        const refused = () => failed(err);
        return Promise.resolve(events.return?.()).then(refused, refused);
      }
      yielded = true;
      return result;
    }, failed);
  };

  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next() {
      if (over) return Promise.resolve(end());
      if (delay === undefined) return read();
      const ms = delay;
      delay = undefined;
      return sleep(ms, url, signal).then(read, (err: unknown) => {
        over = true;
        throw err;
      });
    },
    return() {
      over = true;
      const events = current?.events;
      current = undefined;
      return Promise.resolve(events?.return?.()).then(end);
    },
  };
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
