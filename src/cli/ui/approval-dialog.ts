import type { ApprovalAnswer } from "../../agent/approval.js";
import * as edit from "./input-buffer.js";
import type { InputBuffer } from "./input-buffer.js";
import type { Key, Paste } from "./keys.js";

export const APPROVAL_CHOICES = [
  { key: "y", label: "Allow once" },
  { key: "a", label: "Allow this tool for the session" },
  { key: "s", label: "Allow every tool of this server for the session" },
  { key: "n", label: "Deny (you can say why)" },
] as const;

/**
 * The dialog: which choice is highlighted, the reason being typed after choosing Deny, and
 * how far the arguments are scrolled (`scroll`, their first line shown) and have been read
 * (`furthest`, the furthest `scroll` reached). `unread`: an allow was refused because the
 * arguments have not all been shown yet.
 */
export interface ApprovalDialogState {
  selected: number;
  reason: InputBuffer | undefined;
  scroll: number;
  furthest: number;
  unread: boolean;
}

/** The index of the Deny choice; the ones before it allow. */
const DENY = APPROVAL_CHOICES.length - 1;

export const INITIAL_APPROVAL_DIALOG: ApprovalDialogState = { selected: 0, reason: undefined, scroll: 0, furthest: 0, unread: false };

/** How many lines of arguments there are, how many the dialog shows at once, and whether they are all there. */
export interface ArgumentsView {
  lines: number;
  height: number;
  whole: boolean;
}

/** Arguments that fit (or a dialog with none): nothing to scroll. */
const NOTHING_TO_SCROLL: ArgumentsView = { lines: 0, height: 1, whole: true };

/** Lines the rest of the screen keeps while the dialog is up (its border, title, choices and hints; the input box). */
const SCREEN_KEPT_LINES = 16;

/** How many lines of arguments a terminal of `rows` shows at once. */
export function argumentsHeight(rows: number): number {
  return Math.max(4, rows - SCREEN_KEPT_LINES);
}

/** Whether every line of the arguments has been on screen. */
export function argumentsRead(state: ApprovalDialogState, view: ArgumentsView): boolean {
  return view.whole && state.furthest + view.height >= view.lines;
}

/**
 * One key in the approval dialog: y / a / s / n (or the arrows and Enter) choose; after Deny, a
 * reason may be typed and Enter sends it (empty: no reason); Esc denies at once. PgDn / PgUp
 * (or Space, j / k by the line) scroll arguments taller than the dialog; allowing waits until
 * they have all been shown, so nobody approves what they could not see. Deny always works.
 */
export function applyApprovalKey(state: ApprovalDialogState, key: Key | Paste, view: ArgumentsView = NOTHING_TO_SCROLL): { state: ApprovalDialogState; answer?: ApprovalAnswer } {
  if (state.reason !== undefined) {
    switch (key.kind) {
      case "enter": {
        const reason = state.reason.text.trim();
        return { state, answer: reason === "" ? { decision: "deny" } : { decision: "deny", reason } };
      }
      case "escape":
        return { state, answer: { decision: "deny" } };
      case "text":
      case "paste":
        return { state: { ...state, reason: edit.insert(state.reason, key.text.replace(/\n/g, " ")) } };
      case "backspace":
        return { state: { ...state, reason: edit.backspace(state.reason) } };
      default:
        return { state };
    }
  }
  const choose = (index: number): { state: ApprovalDialogState; answer?: ApprovalAnswer } => {
    if (index < DENY && !argumentsRead(state, view)) return { state: { ...state, selected: index, unread: true } };
    if (index === 0) return { state, answer: { decision: "allow-once" } };
    if (index === 1) return { state, answer: { decision: "allow-session" } };
    if (index === 2) return { state, answer: { decision: "allow-server" } };
    return { state: { ...state, selected: DENY, reason: edit.EMPTY_BUFFER } };
  };
  const scrollBy = (lines: number): { state: ApprovalDialogState } => {
    const scroll = Math.max(0, Math.min(state.scroll + lines, view.lines - view.height));
    return { state: { ...state, scroll, furthest: Math.max(state.furthest, scroll), unread: false } };
  };
  const page = Math.max(1, view.height - 1);
  switch (key.kind) {
    case "page-down":
      return scrollBy(page);
    case "page-up":
      return scrollBy(-page);
    case "up":
      return { state: { ...state, selected: (state.selected + APPROVAL_CHOICES.length - 1) % APPROVAL_CHOICES.length } };
    case "down":
    case "tab":
      return { state: { ...state, selected: (state.selected + 1) % APPROVAL_CHOICES.length } };
    case "enter":
      return choose(state.selected);
    case "escape":
      return { state, answer: { decision: "deny" } };
    case "text": {
      if (key.text === " ") return scrollBy(page);
      if (key.text === "j") return scrollBy(1);
      if (key.text === "k") return scrollBy(-1);
      const index = APPROVAL_CHOICES.findIndex((choice) => choice.key === key.text.toLowerCase());
      const number = Number(key.text) - 1;
      if (index !== -1) return choose(index);
      if (Number.isInteger(number) && number >= 0 && number < APPROVAL_CHOICES.length) return choose(number);
      return { state };
    }
    default:
      return { state };
  }
}
