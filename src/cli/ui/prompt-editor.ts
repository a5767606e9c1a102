import * as edit from "./input-buffer.js";
import type { InputBuffer } from "./input-buffer.js";
import { MAX_PASTE_CHARS, type Key, type Paste } from "./keys.js";
import { expandPastes, labelBefore, pasteLabel, shouldCollapse, type PastedText } from "./pasted-text.js";

/** The prompt: its buffer, and where in the history Up/Down have gone (with the draft they left). */
export interface PromptState {
  buffer: InputBuffer;
  /** Index into the history while browsing it; undefined when editing the draft. */
  historyIndex: number | undefined;
  draft: InputBuffer;
  /** Long pastes, each shown in the buffer as its label. */
  pastes: readonly PastedText[];
}

export const EMPTY_PROMPT: PromptState = { buffer: edit.EMPTY_BUFFER, historyIndex: undefined, draft: edit.EMPTY_BUFFER, pastes: [] };

/** A message sent: `text` as the model gets it, `shown` as the screen shows it (long pastes as their labels). */
export interface Submission {
  text: string;
  shown: string;
  pastes: readonly PastedText[];
}

/** A message typed (or given) whole, with no paste labels in it. */
export function plainSubmission(text: string): Submission {
  return { text, shown: text, pastes: [] };
}

/** What a key did: the new prompt, and the message to send when it was Enter. */
export interface PromptStep {
  state: PromptState;
  submit?: Submission;
}

/**
 * One key applied to the prompt. Enter sends; Shift+Enter, Ctrl+J, and a `\` typed just
 * before Enter start a new line instead; a paste is inserted whole, a long one as a label that
 * Backspace deletes whole and Enter sends as the paste. Up and Down move between
 * lines of a multi-line message, and past its first / last line through the history.
 */
export function applyKey(state: PromptState, key: Key | Paste, history: readonly string[]): PromptStep {
  const buffer = state.buffer;
  const set = (next: InputBuffer): PromptStep => ({ state: { ...state, buffer: next } });
  switch (key.kind) {
    case "text":
      return set(edit.insert(buffer, key.text));
    case "paste": {
      if (!shouldCollapse(key.text)) return set(edit.insert(buffer, key.text));
      const label = pasteLabel(key.text, state.pastes, key.cut ? MAX_PASTE_CHARS : undefined);
      return { state: { ...state, buffer: edit.insert(buffer, label), pastes: [...state.pastes, { label, text: key.text }] } };
    }
    case "enter": {
      if (key.shift) return set(edit.insert(buffer, "\n"));
      if (buffer.text.slice(0, buffer.cursor).endsWith("\\")) return set(edit.insert(edit.backspace(buffer), "\n"));
      if (buffer.text.trim() === "") return set(edit.EMPTY_BUFFER);
      return { state: EMPTY_PROMPT, submit: { text: expandPastes(buffer.text, state.pastes), shown: buffer.text, pastes: state.pastes } };
    }
    case "newline":
      return set(edit.insert(buffer, "\n"));
    case "backspace":
      return set(backspace(state));
    case "delete":
      return set(edit.deleteForward(buffer));
    case "left":
      return set(edit.left(buffer));
    case "right":
      return set(edit.right(buffer));
    case "home":
      return set(edit.home(buffer));
    case "end":
      return set(edit.end(buffer));
    case "word-left":
      return set(edit.wordLeft(buffer));
    case "word-right":
      return set(edit.wordRight(buffer));
    case "up":
    case "down": {
      const direction = key.kind === "up" ? -1 : 1;
      const moved = edit.verticalMove(buffer, direction);
      return moved ? set(moved) : historyStep(state, direction, history);
    }
    case "ctrl":
      switch (key.letter) {
        case "a":
          return set(edit.home(buffer));
        case "e":
          return set(edit.end(buffer));
        case "b":
          return set(edit.left(buffer));
        case "f":
          return set(edit.right(buffer));
        case "u":
          return set(edit.deleteToLineStart(buffer));
        case "k":
          return set(edit.deleteToLineEnd(buffer));
        case "w":
          return set(edit.deleteWordBefore(buffer));
        case "h":
          return set(backspace(state));
        case "p":
          return historyStep(state, -1, history);
        case "n":
          return historyStep(state, 1, history);
        default:
          return { state };
      }
    default:
      return { state };
  }
}

/** Backspace: a paste's label goes whole. */
function backspace(state: PromptState): InputBuffer {
  const { text, cursor } = state.buffer;
  const label = labelBefore(text, cursor, state.pastes);
  if (!label) return edit.backspace(state.buffer);
  const start = cursor - label.label.length;
  return { text: text.slice(0, start) + text.slice(cursor), cursor: start };
}

function historyStep(state: PromptState, direction: -1 | 1, history: readonly string[]): PromptStep {
  if (history.length === 0) return { state };
  const current = state.historyIndex ?? history.length;
  const next = Math.min(history.length, Math.max(0, current + direction));
  if (next === current) return { state };
  if (next === history.length) return { state: { ...state, buffer: state.draft, historyIndex: undefined, draft: edit.EMPTY_BUFFER } };
  const draft = state.historyIndex === undefined ? state.buffer : state.draft;
  return { state: { ...state, buffer: edit.bufferOf(history[next] ?? ""), historyIndex: next, draft } };
}
