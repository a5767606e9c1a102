import stringWidth from "string-width";
import { argumentBlocks } from "../../agent/argument-view.js";
import { cleanTerminalText } from "../render/terminal-text.js";

/**
 * A tool call's arguments as the approval dialog shows them: every argument, every string
 * whole, wrapped to the dialog's width, so what is allowed is what was read. A string of
 * several lines (also inside an object) is shown as its lines under its name, edits of a file
 * as a diff (`- ` old, `+ ` new lines, coloured); other values as indented JSON.
 */
export type LineTone = "removed" | "added" | undefined;

export interface ArgumentLines {
  lines: string[];
  /** Each line's colour, beside `lines` (undefined: plain). */
  tones: LineTone[];
  /** False when the arguments were too long to show whole: then they cannot be allowed from the dialog. */
  whole: boolean;
}

/** Beyond this many lines the rest is not drawn (and the call cannot be allowed blind). */
export const MAX_ARGUMENT_LINES = 20_000;
const TAB = "    ";

const cache = new WeakMap<object, { width: number; shown: ArgumentLines }>();

/** The lines of `args` at `width` columns; computed once per call and width. */
export function argumentLines(args: Record<string, unknown>, width: number): ArgumentLines {
  const cached = cache.get(args);
  if (cached?.width === width) return cached.shown;
  const shown = layOut(args, Math.max(10, width));
  cache.set(args, { width, shown });
  return shown;
}

function layOut(args: Record<string, unknown>, width: number): ArgumentLines {
  const lines: string[] = [];
  const tones: LineTone[] = [];
  const push = (line: string, indent: string, tone?: LineTone): boolean => {
    // A line never needs more characters than the lines left can hold (one more, to know it was cut).
    const room = (MAX_ARGUMENT_LINES - lines.length + 1) * width;
    for (const piece of hardWrap(visible(line.slice(0, room)), width - indent.length)) {
      if (lines.length >= MAX_ARGUMENT_LINES) return false;
      lines.push(indent + piece);
      tones.push(tone);
    }
    return true;
  };
  for (const block of argumentBlocks(args)) {
    if (block.kind === "text") {
      if (!push(`${block.name}: (${block.lines.length} lines)`, "")) return cut(lines, tones);
      for (const line of block.lines) if (!push(line, "  │ ")) return cut(lines, tones);
    } else if (block.kind === "edits") {
      for (const [index, edit] of block.edits.entries()) {
        const which = block.edits.length === 1 ? "" : ` ${index + 1} of ${block.edits.length}`;
        if (!push(`${block.name}${which}: ${edit.removed} line${edit.removed === 1 ? "" : "s"} out, ${edit.added} in`, "")) return cut(lines, tones);
        for (const line of edit.lines) {
          const [mark, tone] = line.kind === "removed" ? ["- ", "removed" as const] : line.kind === "added" ? ["+ ", "added" as const] : ["  ", undefined];
          if (!push(line.text, `  ${mark}`, tone)) return cut(lines, tones);
        }
      }
    } else {
      const [first = "", ...rest] = block.json.split(/\r?\n/);
      if (!push(`${block.name}: ${first}`, "")) return cut(lines, tones);
      for (const line of rest) if (!push(line, "")) return cut(lines, tones);
    }
  }
  return { lines, tones, whole: true };
}

/** Cut at exactly `width` columns, spaces kept (a reviewer sees them as they are); linear in the line. */
function hardWrap(line: string, width: number): string[] {
  if (/^[\x20-\x7e]*$/.test(line)) {
    const pieces: string[] = [];
    for (let at = 0; at < line.length || pieces.length === 0; at += width) pieces.push(line.slice(at, at + width));
    return pieces;
  }
  const pieces: string[] = [];
  let piece = "";
  let used = 0;
  for (const char of line) {
    const columns = stringWidth(char);
    if (used + columns > width && piece !== "") {
      pieces.push(piece);
      piece = "";
      used = 0;
    }
    piece += char;
    used += columns;
  }
  pieces.push(piece);
  return pieces;
}

function cut(lines: string[], tones: LineTone[]): ArgumentLines {
  lines.push(`… more than ${MAX_ARGUMENT_LINES.toLocaleString("en-US")} lines: too long to review here`);
  tones.push(undefined);
  return { lines, tones, whole: false };
}

/**
 * Control characters shown as what they are (`\x1b`, `\r`), never acted on or dropped: a
 * reviewer sees every byte the tool will get. Tabs become spaces so the wrap is true.
 */
function visible(text: string): string {
  const shown = text.replace(/\t/g, TAB).replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`);
  return cleanTerminalText(shown);
}
