import type { AgentEvent } from "../../agent/events.js";

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

export type DialogKind = "approval" | "question";

/**
 * Leaves the person's time out of what a turn reports (the chat's usage line and tokens per
 * second, `run`'s durations and JSON): a turn's duration loses the time any dialog was open;
 * a tool call's, the time a server's question was open while it ran (the agent already starts
 * a call's clock after its approval).
 */
export class PersonTime {
  /** Any dialog open: a tool approval or a server's question (an elicitation form, a sampling approval). */
  readonly dialogs: DialogClock;
  /** A server's question open. */
  readonly questions: DialogClock;
  private readonly open: Record<DialogKind, number> = { approval: 0, question: 0 };
  private turnStart: ClockMark | undefined;
  private readonly callStarts = new Map<string, ClockMark>();
  private readonly callWaits = new Map<string, number>();

  constructor(now?: () => number) {
    this.dialogs = new DialogClock(now);
    this.questions = new DialogClock(now);
  }

  /** What a screen of dialogs (the chat) shows now. */
  showing(approval: boolean, question: boolean): void {
    this.questions.open = question;
    this.dialogs.open = approval || question;
  }

  /** A dialog asked line by line (`run`), open until it is answered. */
  async during<T>(kind: DialogKind, answered: Promise<T>): Promise<T> {
    this.open[kind]++;
    this.showing(this.open.approval > 0, this.open.question > 0);
    try {
      return await answered;
    } finally {
      this.open[kind]--;
      this.showing(this.open.approval > 0, this.open.question > 0);
    }
  }

  startTurn(): void {
    this.turnStart = this.dialogs.mark();
    this.callStarts.clear();
    this.callWaits.clear();
  }

  /** The event with the person's time taken out of its durations. */
  adjust(event: AgentEvent): AgentEvent {
    switch (event.type) {
      case "tool-call-started":
        this.callStarts.set(event.id, this.questions.mark());
        return event;
      case "tool-call-finished": {
        const start = this.callStarts.get(event.id);
        this.callStarts.delete(event.id);
        const waited = start ? this.questions.waitedSince(start) : 0;
        this.callWaits.set(event.id, waited);
        return { ...event, durationMs: Math.max(0, event.durationMs - waited) };
      }
      case "turn-end": {
        const { turn } = event;
        const waited = this.turnStart ? this.dialogs.waitedSince(this.turnStart) : 0;
        const toolCalls = turn.toolCalls.map((call) => ({ ...call, durationMs: Math.max(0, call.durationMs - (this.callWaits.get(call.id) ?? 0)) }));
        return { ...event, turn: { ...turn, durationMs: Math.max(0, turn.durationMs - waited), toolCalls } };
      }
      default:
        return event;
    }
  }
}
