import type { Candidate, Completion } from "../chat/completion.js";
import type { InputBuffer } from "./input-buffer.js";
import type { Key, Paste } from "./keys.js";

/** The list of candidates under the input, open for the buffer it was made for. */
export interface CompletionMenu {
  /** The input it was made for: once the input is something else (cleared by Ctrl-C, say), the list is stale. */
  buffer: InputBuffer;
  completion: Completion;
  /** The highlighted candidate. */
  index: number;
}

/** The buffer with the word replaced by `candidate`, the cursor after it. */
export function applyCandidate(buffer: InputBuffer, completion: Completion, candidate: Candidate): InputBuffer {
  const text = buffer.text.slice(0, completion.from) + candidate.insert + buffer.text.slice(completion.to);
  return { text, cursor: completion.from + candidate.insert.length };
}

/**
 * What a completion answer does to the input: one candidate is put in at once; several open
 * the list (after putting in the start they all share, as a shell does).
 */
export function openCompletion(buffer: InputBuffer, completion: Completion): { buffer: InputBuffer; menu: CompletionMenu | undefined } {
  const [first, ...others] = completion.candidates;
  if (!first) return { buffer, menu: undefined };
  if (others.length === 0) return { buffer: applyCandidate(buffer, completion, first), menu: undefined };
  const shared = commonPrefix(completion.candidates.map((candidate) => candidate.insert));
  const typed = buffer.text.slice(completion.from, completion.to);
  if (shared.length > typed.length && shared.startsWith(typed)) {
    const next = applyCandidate(buffer, completion, { insert: shared, label: shared });
    return { buffer: next, menu: { buffer: next, completion: { ...completion, to: completion.from + shared.length }, index: 0 } };
  }
  return { buffer, menu: { buffer, completion, index: 0 } };
}

/**
 * A key while the list is open: Tab / Down and Shift+Tab / Up move the highlight, Enter puts
 * the highlighted candidate in, Esc closes the list. Any other key closes it and is then
 * handled as usual (`handled` false).
 */
export function menuKey(menu: CompletionMenu, buffer: InputBuffer, key: Key | Paste): { menu: CompletionMenu | undefined; buffer: InputBuffer; handled: boolean } {
  const count = menu.completion.candidates.length;
  const move = (step: number) => ({ menu: { ...menu, index: (menu.index + step + count) % count }, buffer, handled: true });
  switch (key.kind) {
    case "tab":
      return move(key.shift ? -1 : 1);
    case "down":
      return move(1);
    case "up":
      return move(-1);
    case "enter": {
      const candidate = menu.completion.candidates[menu.index];
      return { menu: undefined, buffer: candidate ? applyCandidate(buffer, menu.completion, candidate) : buffer, handled: true };
    }
    case "escape":
      return { menu: undefined, buffer, handled: true };
    default:
      return { menu: undefined, buffer, handled: false };
  }
}

function commonPrefix(values: string[]): string {
  let prefix = values[0] ?? "";
  // By code point, so an emoji is never cut in half.
  for (const value of values) while (!value.startsWith(prefix)) prefix = Array.from(prefix).slice(0, -1).join("");
  return prefix;
}
