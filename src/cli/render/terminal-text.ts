/**
 * Text from servers and models is data, never terminal commands. Before any of it reaches
 * a terminal, escape sequences (CSI, OSC such as a window title, DCS/SOS/PM/APC strings, the
 * 8-bit C1 forms) are removed whole, and every other control character is shown escaped
 * (`\x07`), except newline and tab. Bidirectional overrides, which can make text read other
 * than it is, are shown escaped too. Our own styling is applied after cleaning.
 */

const ESC = 0x1b;
const BEL = 0x07;
// 8-bit C1 introducers that open a sequence: CSI, OSC, DCS, SOS, PM, APC; ST ends a string.
const C1_CSI = 0x9b;
const C1_OSC = 0x9d;
const C1_STRING_STARTS = new Set([0x90, 0x98, 0x9e, 0x9f]);
const C1_ST = 0x9c;

/** A sequence that runs longer than this is ended, so an unterminated one cannot swallow all the text after it. */
const MAX_HELD = 4096;

type State =
  | { kind: "text" }
  /** After ESC. */
  | { kind: "escape" }
  /** Inside ESC [ … final byte. */
  | { kind: "csi" }
  /** Inside an OSC / DCS / SOS / PM / APC string, until BEL (OSC only) or ST. */
  | { kind: "string"; osc: boolean; afterEsc: boolean }
  /** ESC followed by intermediate bytes (0x20–0x2f), until a final byte. */
  | { kind: "intermediate" };

function isBidiControl(code: number): boolean {
  return (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || code === 0x200e || code === 0x200f || code === 0x061c;
}

function escaped(code: number): string {
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * A cleaner for text that arrives in pieces (a streamed answer): a sequence split across
 * pieces is still recognised and removed. Linear in the text; holds nothing back but a
 * carriage return, until it is known whether a newline follows.
 */
export class TerminalTextCleaner {
  private state: State = { kind: "text" };
  private held = 0;
  // A carriage return is kept only as part of CRLF; a lone one (which would let text overwrite the line) is shown escaped.
  private pendingCR = false;

  push(text: string): string {
    let out = "";
    let runStart = 0;
    const flushRun = (end: number): void => {
      if (end > runStart) out += text.slice(runStart, end);
    };
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (this.state.kind !== "text") {
        this.consumeSequence(code);
        runStart = i + 1;
        continue;
      }
      if (this.pendingCR) {
        this.pendingCR = false;
        if (code !== 0x0a) out += "\\r";
      }
      if (code >= 0x20 && code !== 0x7f && !(code >= 0x80 && code <= 0x9f) && !isBidiControl(code)) continue;
      if (code === 0x0a || code === 0x09) continue;
      flushRun(i);
      runStart = i + 1;
      if (code === 0x0d) this.pendingCR = true;
      else if (code === ESC) this.enter({ kind: "escape" });
      else if (code === C1_CSI) this.enter({ kind: "csi" });
      else if (code === C1_OSC) this.enter({ kind: "string", osc: true, afterEsc: false });
      else if (C1_STRING_STARTS.has(code)) this.enter({ kind: "string", osc: false, afterEsc: false });
      else out += escaped(code);
    }
    flushRun(text.length);
    return out;
  }

  /** The end of the text: a sequence never finished is dropped, a trailing lone CR shown. */
  end(): string {
    const tail = this.pendingCR ? "\\r" : "";
    this.pendingCR = false;
    this.state = { kind: "text" };
    this.held = 0;
    return tail;
  }

  private enter(state: State): void {
    this.state = state;
    this.held = 0;
  }

  private consumeSequence(code: number): void {
    this.held += 1;
    const state = this.state;
    switch (state.kind) {
      case "escape":
        if (code === 0x5b) this.enter({ kind: "csi" });
        else if (code === 0x5d) this.enter({ kind: "string", osc: true, afterEsc: false });
        else if (code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f) this.enter({ kind: "string", osc: false, afterEsc: false });
        else if (code >= 0x20 && code <= 0x2f) this.enter({ kind: "intermediate" });
        else this.state = { kind: "text" };
        return;
      case "csi":
        // Parameters and intermediates are 0x20–0x3f; a final byte 0x40–0x7e ends it; anything else aborts it.
        if (code >= 0x40 && code <= 0x7e) this.state = { kind: "text" };
        else if (code < 0x20 || code > 0x3f) this.state = { kind: "text" };
        break;
      case "intermediate":
        if (code < 0x20 || code > 0x2f) this.state = { kind: "text" };
        break;
      case "string":
        if ((state.osc && code === BEL) || code === C1_ST || (state.afterEsc && code === 0x5c)) this.state = { kind: "text" };
        else state.afterEsc = code === ESC;
        break;
      case "text":
        break;
    }
    if (this.state.kind !== "text" && this.held > MAX_HELD) this.state = { kind: "text" };
  }
}

/** Cleans one whole piece of text (a tool result, a listing cell, an error message). */
export function cleanTerminalText(text: string): string {
  const cleaner = new TerminalTextCleaner();
  return cleaner.push(text) + cleaner.end();
}
