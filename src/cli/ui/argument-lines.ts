import stringWidth from "string-width";
import { cleanTerminalText } from "../render/terminal-text.js";

/**
 * A tool call's arguments as the approval dialog shows them: every argument, every string
 * whole, wrapped to the dialog's width, so what is allowed is what was read. A string of
 * several lines is shown as its lines under its name; other values as indented JSON.
 */
export interface ArgumentLines {
  lines: string[];
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
  const push = (line: string, indent: string): boolean => {
    // A line never needs more characters than the lines left can hold (one more, to know it was cut).
    const room = (MAX_ARGUMENT_LINES - lines.length + 1) * width;
    for (const piece of hardWrap(visible(line.slice(0, room)), width - indent.length)) {
      if (lines.length >= MAX_ARGUMENT_LINES) return false;
      lines.push(indent + piece);
    }
    return true;
  };
  for (const [key, value] of Object.entries(args)) {
    const text = typeof value === "string" ? value : JSON.stringify(value, null, 2) ?? "null";
    const own = text.split(/\r?\n/);
    if (typeof value === "string" && own.length > 1) {
      if (!push(`${key}: (${own.length} lines)`, "")) return cut(lines);
      for (const line of own) if (!push(line, "  │ ")) return cut(lines);
    } else {
      const [first = "", ...rest] = own;
      if (!push(`${key}: ${typeof value === "string" ? JSON.stringify(value) : first}`, "")) return cut(lines);
      for (const line of rest) if (!push(line, "")) return cut(lines);
    }
  }
  return { lines, whole: true };
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

function cut(lines: string[]): ArgumentLines {
  lines.push(`… more than ${MAX_ARGUMENT_LINES.toLocaleString("en-US")} lines: too long to review here`);
  return { lines, whole: false };
}

/**
 * Control characters shown as what they are (`\x1b`, `\r`), never acted on or dropped: a
 * reviewer sees every byte the tool will get. Tabs become spaces so the wrap is true.
 */
function visible(text: string): string {
  const shown = text.replace(/\t/g, TAB).replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`);
  return cleanTerminalText(shown);
}
