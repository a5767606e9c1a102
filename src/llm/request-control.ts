import { abortedError, timeoutError, type LlmError } from "./errors.js";

/**
 * One request's abort signal: the caller's signal plus an idle timeout. The timeout counts
 * from the request and restarts on every piece of stream received, so a long answer that
 * keeps streaming is never cut, while a server that goes quiet is.
 */
export class RequestControl {
  private readonly controller = new AbortController();
  /** Made once and pushed back with refresh(): touch() runs for every chunk of a stream. */
  private readonly timer: NodeJS.Timeout;
  private timedOut = false;
  private readonly onOuterAbort = () => this.controller.abort();

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
    private readonly outer?: AbortSignal,
  ) {
    if (outer?.aborted) this.controller.abort();
    else outer?.addEventListener("abort", this.onOuterAbort, { once: true });
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, timeoutMs);
    this.timer.unref();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Something arrived: restart the idle timeout. */
  touch(): void {
    this.timer.refresh();
  }

  /**
   * Why the request was stopped from our side, if it was. SDKs end a stream silently or
   * with their own abort error when the signal fires; this names the real reason.
   */
  stopReason(): LlmError | undefined {
    if (this.outer?.aborted) return abortedError(this.url);
    if (this.timedOut) return timeoutError(this.url, this.timeoutMs);
    return undefined;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener("abort", this.onOuterAbort);
  }
}

/** Default idle timeout: generous, since a large prompt on a busy local GPU can take minutes to a first token. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;
