/** A moment, with how long dialogs had been open by then. */
export interface ClockMark {
  at: number;
  dialogMs: number;
}

/**
 * The time the chat spent with a question on screen (a tool approval, a server's form): the
 * person's time, not the model's or the tool's. Durations and tokens per second leave it out.
 */
export class DialogClock {
  private totalMs = 0;
  private openSince: number | undefined;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Whether a dialog is on screen now. */
  set open(open: boolean) {
    if (open && this.openSince === undefined) this.openSince = this.now();
    else if (!open && this.openSince !== undefined) {
      this.totalMs += this.now() - this.openSince;
      this.openSince = undefined;
    }
  }

  /** Time spent in dialogs so far, one open now included. */
  dialogMs(): number {
    return this.totalMs + (this.openSince === undefined ? 0 : this.now() - this.openSince);
  }

  mark(): ClockMark {
    return { at: this.now(), dialogMs: this.dialogMs() };
  }

  /** Time since `mark` spent with no dialog on screen. */
  activeSince(mark: ClockMark): number {
    return this.now() - mark.at - this.waitedSince(mark);
  }

  /** Time since `mark` spent with a dialog on screen. */
  waitedSince(mark: ClockMark): number {
    return this.dialogMs() - mark.dialogMs;
  }
}
