/**
 * Values a callback pushes, read as an async iterable: for libraries that stream through
 * callbacks while a promise runs (node-llama-cpp's `onResponseChunk`). Ends when `end` is
 * called, throws what `fail` is given after the values before it.
 */
export class PushedEvents<T> implements AsyncIterable<T> {
  private readonly queued: T[] = [];
  private finished = false;
  private failure: { error: unknown } | undefined;
  private wake: (() => void) | undefined;

  push(value: T): void {
    this.queued.push(value);
    this.notify();
  }

  end(): void {
    this.finished = true;
    this.notify();
  }

  fail(error: unknown): void {
    this.failure = { error };
    this.end();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      while (this.queued.length > 0) yield this.queued.shift()!;
      if (this.finished) {
        if (this.failure) throw this.failure.error;
        return;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
