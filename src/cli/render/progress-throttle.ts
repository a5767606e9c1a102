/** How often one tool call's progress may be shown: a server may notify thousands of times a second. */
export const PROGRESS_INTERVAL_MS = 1000;

/**
 * Decides which progress notifications reach the screen: the first of each call, then at most
 * one per interval. The notifications themselves all still arrive (and still keep the call's
 * timeout alive); only the display is bounded.
 */
export class ProgressThrottle {
  private readonly lastShown = new Map<string, number>();

  constructor(
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Whether to show this notification of call `id`. */
  shouldShow(id: string): boolean {
    const now = this.now();
    const last = this.lastShown.get(id);
    if (last !== undefined && now - last < this.intervalMs) return false;
    this.lastShown.set(id, now);
    return true;
  }

  /** The call ended: forget it. */
  done(id: string): void {
    this.lastShown.delete(id);
  }
}
