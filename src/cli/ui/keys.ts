/**
 * What one input event from the terminal means to the chat's input. Ink splits the raw
 * input into escape sequences and runs of text; this names them. Pasted text arrives
 * between the bracketed-paste markers (enabled by the UI), so the caller can keep a paste
 * whole, newlines and all.
 */
export type Key =
  | { kind: "text"; text: string }
  | { kind: "paste-start" }
  | { kind: "paste-end" }
  /** Enter; `shift` where the terminal reports Shift+Enter (kitty keyboard protocol, xterm's modifyOtherKeys). */
  | { kind: "enter"; shift: boolean }
  /** Ctrl+J (a bare line feed): a new line in the message. */
  | { kind: "newline" }
  | { kind: "backspace" }
  | { kind: "delete" }
  | { kind: "left" | "right" | "up" | "down" | "home" | "end" | "word-left" | "word-right" | "page-up" | "page-down" }
  | { kind: "tab"; shift: boolean }
  | { kind: "escape" }
  /** Ctrl + a letter. */
  | { kind: "ctrl"; letter: string }
  /** Anything else (a function key): ignored. */
  | { kind: "other" };

const SEQUENCES: Record<string, Key> = {
  "\x1b[200~": { kind: "paste-start" },
  "\x1b[201~": { kind: "paste-end" },
  "\r": { kind: "enter", shift: false },
  "\x1b[13;2u": { kind: "enter", shift: true },
  "\x1b[27;2;13~": { kind: "enter", shift: true },
  // Some terminals send ESC CR for Shift+Enter (or Alt+Enter); either way a new line.
  "\x1b\r": { kind: "enter", shift: true },
  "\n": { kind: "newline" },
  "\x7f": { kind: "backspace" },
  "\b": { kind: "backspace" },
  "\x1b[3~": { kind: "delete" },
  "\x1b[D": { kind: "left" },
  "\x1bOD": { kind: "left" },
  "\x1b[C": { kind: "right" },
  "\x1bOC": { kind: "right" },
  "\x1b[A": { kind: "up" },
  "\x1bOA": { kind: "up" },
  "\x1b[B": { kind: "down" },
  "\x1bOB": { kind: "down" },
  "\x1b[H": { kind: "home" },
  "\x1bOH": { kind: "home" },
  "\x1b[1~": { kind: "home" },
  "\x1b[7~": { kind: "home" },
  "\x1b[F": { kind: "end" },
  "\x1bOF": { kind: "end" },
  "\x1b[4~": { kind: "end" },
  "\x1b[8~": { kind: "end" },
  "\x1b[5~": { kind: "page-up" },
  "\x1b[6~": { kind: "page-down" },
  "\x1b[1;5D": { kind: "word-left" },
  "\x1b[1;3D": { kind: "word-left" },
  "\x1bb": { kind: "word-left" },
  "\x1b[1;5C": { kind: "word-right" },
  "\x1b[1;3C": { kind: "word-right" },
  "\x1bf": { kind: "word-right" },
  "\t": { kind: "tab", shift: false },
  "\x1b[Z": { kind: "tab", shift: true },
  "\x1b": { kind: "escape" },
  "\x1b\x1b": { kind: "escape" },
};

/**
 * Splits one input event into keys. A run of typed text may hold carriage returns (keys
 * typed faster than they are read): each is an Enter. Other control characters become
 * their Ctrl keys; escape sequences we do not know are ignored, never inserted.
 */
export function decodeKeys(event: string): Key[] {
  const known = SEQUENCES[event];
  if (known) return [known];
  if (event.startsWith("\x1b")) return [{ kind: "other" }];
  const keys: Key[] = [];
  let text = "";
  const flush = (): void => {
    if (text !== "") keys.push({ kind: "text", text });
    text = "";
  };
  for (const char of event) {
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0x20 && code !== 0x7f) {
      text += char;
      continue;
    }
    flush();
    const single = SEQUENCES[char];
    if (single) keys.push(single);
    else if (code >= 1 && code <= 26) keys.push({ kind: "ctrl", letter: String.fromCharCode(code + 96) });
    else keys.push({ kind: "other" });
  }
  flush();
  return keys;
}

/** A paste, whole; `cut` when it was longer than MAX_PASTE_CHARS and only the start was kept. */
export interface Paste {
  kind: "paste";
  text: string;
  cut: boolean;
}

export const MAX_PASTE_CHARS = 1_000_000;

/**
 * Follows the bracketed-paste markers across events: inside a paste everything is text
 * (a newline is a newline, not Enter), and the paste is handed over whole when it ends.
 */
export class KeyReader {
  private paste: string | undefined;
  private pasteCut = false;

  /** The keys of one event; a finished paste comes out as one `{kind: "paste"}`. */
  read(event: string): Array<Key | Paste> {
    const out: Array<Key | Paste> = [];
    // A paste's text may share an event with its markers when the terminal writes them together.
    for (const part of splitPasteMarkers(event)) {
      if (part === "\x1b[200~") {
        this.paste = "";
        this.pasteCut = false;
        continue;
      }
      if (part === "\x1b[201~") {
        if (this.paste !== undefined) out.push({ kind: "paste", text: normalizeNewlines(this.paste), cut: this.pasteCut });
        this.paste = undefined;
        continue;
      }
      if (this.paste !== undefined) {
        const room = MAX_PASTE_CHARS - this.paste.length;
        if (part.length > room) this.pasteCut = true;
        this.paste += part.slice(0, Math.max(0, room));
        continue;
      }
      out.push(...decodeKeys(part));
    }
    return out;
  }
}

function splitPasteMarkers(event: string): string[] {
  return event.split(/(\x1b\[20[01]~)/).filter((part) => part !== "");
}

function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}
