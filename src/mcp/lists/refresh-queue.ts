/**
 * Coalesces refreshes of one list: while one runs, any number of further requests make one
 * more run after it, never more. A server that sends 20,000 `list_changed` notifications
 * causes two listings, not 20,000, and the last listing still sees the final state.
 */
export class RefreshQueue {
  private running: Promise<void> | undefined;
  private pending = false;

  constructor(private readonly run: () => Promise<void>) {}

  /** Asks for a refresh; resolves when a refresh that started after this request has ended. */
  request(): Promise<void> {
    if (this.running) {
      this.pending = true;
      return this.running;
    }
    const running: Promise<void> = this.loop().finally(() => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    return running;
  }

  /**
   * `listing`, a first listing made elsewhere (at connect), counts as the refresh under way until it settles:
   * requests meanwhile make one refresh after it, as they would during a refresh. A server that says its list
   * changed as it starts (server-everything does, twice, once initialized) was otherwise listed twice more
   * at once, beside the first listing.
   */
  during(listing: Promise<void>): void {
    const running: Promise<void> = listing
      .catch(() => undefined)
      .then(() => (this.pending ? this.loop() : undefined))
      .finally(() => {
        if (this.running === running) this.running = undefined;
      });
    this.running = running;
  }

  /** Whether a refresh is under way. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** The refresh under way, else a new one: for a caller that needs a listing newer than the one it holds. */
  current(): Promise<void> {
    return this.running ?? this.request();
  }

  private async loop(): Promise<void> {
    do {
      this.pending = false;
      await this.run();
    } while (this.pending);
  }
}
