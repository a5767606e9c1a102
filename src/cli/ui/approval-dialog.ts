import type { ApprovalAnswer } from "../../agent/approval.js";
import * as edit from "./input-buffer.js";
import type { InputBuffer } from "./input-buffer.js";
import type { Key, Paste } from "./keys.js";

export const APPROVAL_CHOICES = [
  { key: "y", label: "Allow once" },
  { key: "a", label: "Allow this tool for the session" },
  { key: "n", label: "Deny (you can say why)" },
] as const;

/** The dialog: which choice is highlighted, and the reason being typed after choosing Deny. */
export interface ApprovalDialogState {
  selected: number;
  reason: InputBuffer | undefined;
}

export const INITIAL_APPROVAL_DIALOG: ApprovalDialogState = { selected: 0, reason: undefined };

/**
 * One key in the approval dialog: y / a / n (or the arrows and Enter) choose; after Deny, a
 * reason may be typed and Enter sends it (empty: no reason); Esc denies at once.
 */
export function applyApprovalKey(state: ApprovalDialogState, key: Key | Paste): { state: ApprovalDialogState; answer?: ApprovalAnswer } {
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
    if (index === 0) return { state, answer: { decision: "allow-once" } };
    if (index === 1) return { state, answer: { decision: "allow-session" } };
    return { state: { selected: 2, reason: edit.EMPTY_BUFFER } };
  };
  switch (key.kind) {
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
