import stringWidth from "string-width";

/**
 * The text being typed and the cursor in it, as an immutable value. The cursor is an
 * index into the string that always sits on a grapheme boundary, so a wide (CJK) character,
 * an emoji or a letter with combining marks is moved over and deleted whole; moving up and
 * down keeps the display column, counted in terminal cells.
 */
export interface InputBuffer {
  readonly text: string;
  readonly cursor: number;
}

export const EMPTY_BUFFER: InputBuffer = { text: "", cursor: 0 };

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * Grapheme boundaries are found in a window around the cursor, never over the whole text, so a
 * key costs the same in a megabyte as in a word. A boundary is trusted only when the window
 * reaches back to the line's start (a line feed always ends a grapheme) or when it lies past
 * the window's first grapheme; otherwise (a cluster longer than the window) the window doubles.
 * (A line of more than 30 flags, pairs of regional indicators, may be paired off by one.)
 */
const WINDOW = 64;

function boundariesAround(text: string, cursor: number): number[] {
  // The start of the line holding the character before the cursor.
  const lineFrom = cursor < 2 ? 0 : text.lastIndexOf("\n", cursor - 2) + 1;
  for (let size = WINDOW; ; size *= 2) {
    const from = Math.max(lineFrom, cursor - size);
    const to = Math.min(text.length, cursor + size);
    const starts: number[] = [];
    for (const { index } of segmenter.segment(text.slice(from, to))) starts.push(from + index);
    // A boundary depends on what comes before it, so the window's first one is trusted only at the line's start.
    const trustedBefore = from === lineFrom || starts.some((start) => start > from && start < cursor);
    const trustedAfter = to === text.length || starts.some((start) => start > cursor);
    if (trustedBefore && trustedAfter) return starts;
  }
}

function previousBoundary(text: string, cursor: number): number {
  if (cursor === 0) return 0;
  const starts = boundariesAround(text, cursor);
  let before = 0;
  for (const start of starts) {
    if (start >= cursor) break;
    before = start;
  }
  return before;
}

function nextBoundary(text: string, cursor: number): number {
  if (cursor >= text.length) return text.length;
  const starts = boundariesAround(text, cursor);
  for (const start of starts) if (start > cursor) return start;
  return text.length;
}

export function bufferOf(text: string): InputBuffer {
  return { text, cursor: text.length };
}

export function insert(buffer: InputBuffer, text: string): InputBuffer {
  return { text: buffer.text.slice(0, buffer.cursor) + text + buffer.text.slice(buffer.cursor), cursor: buffer.cursor + text.length };
}

export function backspace(buffer: InputBuffer): InputBuffer {
  if (buffer.cursor === 0) return buffer;
  const start = previousBoundary(buffer.text, buffer.cursor);
  return { text: buffer.text.slice(0, start) + buffer.text.slice(buffer.cursor), cursor: start };
}

export function deleteForward(buffer: InputBuffer): InputBuffer {
  if (buffer.cursor >= buffer.text.length) return buffer;
  const end = nextBoundary(buffer.text, buffer.cursor);
  return { text: buffer.text.slice(0, buffer.cursor) + buffer.text.slice(end), cursor: buffer.cursor };
}

export function left(buffer: InputBuffer): InputBuffer {
  return { ...buffer, cursor: previousBoundary(buffer.text, buffer.cursor) };
}

export function right(buffer: InputBuffer): InputBuffer {
  return { ...buffer, cursor: nextBoundary(buffer.text, buffer.cursor) };
}

function lineStart(text: string, cursor: number): number {
  return text.lastIndexOf("\n", cursor - 1) + 1;
}

function lineEnd(text: string, cursor: number): number {
  const end = text.indexOf("\n", cursor);
  return end === -1 ? text.length : end;
}

export function home(buffer: InputBuffer): InputBuffer {
  return { ...buffer, cursor: lineStart(buffer.text, buffer.cursor) };
}

export function end(buffer: InputBuffer): InputBuffer {
  return { ...buffer, cursor: lineEnd(buffer.text, buffer.cursor) };
}

const WORD = /[\p{L}\p{N}_]/u;

export function wordLeft(buffer: InputBuffer): InputBuffer {
  let cursor = buffer.cursor;
  while (cursor > 0 && !WORD.test(buffer.text[cursor - 1] ?? "")) cursor = previousBoundary(buffer.text, cursor);
  while (cursor > 0 && WORD.test(buffer.text[cursor - 1] ?? "")) cursor = previousBoundary(buffer.text, cursor);
  return { ...buffer, cursor };
}

export function wordRight(buffer: InputBuffer): InputBuffer {
  let cursor = buffer.cursor;
  while (cursor < buffer.text.length && !WORD.test(buffer.text[cursor] ?? "")) cursor = nextBoundary(buffer.text, cursor);
  while (cursor < buffer.text.length && WORD.test(buffer.text[cursor] ?? "")) cursor = nextBoundary(buffer.text, cursor);
  return { ...buffer, cursor };
}

/** Ctrl-W: the word before the cursor. */
export function deleteWordBefore(buffer: InputBuffer): InputBuffer {
  const start = wordLeft(buffer).cursor;
  return { text: buffer.text.slice(0, start) + buffer.text.slice(buffer.cursor), cursor: start };
}

/** Ctrl-U: the line up to the cursor. */
export function deleteToLineStart(buffer: InputBuffer): InputBuffer {
  const start = lineStart(buffer.text, buffer.cursor);
  return { text: buffer.text.slice(0, start) + buffer.text.slice(buffer.cursor), cursor: start };
}

/** Ctrl-K: the line from the cursor. */
export function deleteToLineEnd(buffer: InputBuffer): InputBuffer {
  const stop = lineEnd(buffer.text, buffer.cursor);
  return { text: buffer.text.slice(0, buffer.cursor) + buffer.text.slice(stop), cursor: buffer.cursor };
}

/** The cursor's line and its column in terminal cells. */
export function cursorPosition(buffer: InputBuffer): { line: number; column: number } {
  const before = buffer.text.slice(0, buffer.cursor);
  const line = before.split("\n").length - 1;
  return { line, column: stringWidth(before.slice(lineStart(buffer.text, buffer.cursor))) };
}

/** Up or down one line, at the same display column (or the nearest boundary left of it); undefined at the first / last line. */
export function verticalMove(buffer: InputBuffer, direction: -1 | 1): InputBuffer | undefined {
  const { column } = cursorPosition(buffer);
  const start = lineStart(buffer.text, buffer.cursor);
  let targetStart: number;
  if (direction < 0) {
    if (start === 0) return undefined;
    targetStart = lineStart(buffer.text, start - 1);
  } else {
    const stop = lineEnd(buffer.text, buffer.cursor);
    if (stop >= buffer.text.length) return undefined;
    targetStart = stop + 1;
  }
  const targetEnd = lineEnd(buffer.text, targetStart);
  let cursor = targetStart;
  for (const { index, segment } of segmenter.segment(buffer.text.slice(targetStart, targetEnd))) {
    const width = stringWidth(buffer.text.slice(targetStart, targetStart + index + segment.length));
    if (width > column) break;
    cursor = targetStart + index + segment.length;
  }
  return { ...buffer, cursor };
}

/** The text split around the cursor, for drawing: before, the grapheme under it (a space at the end of a line), after. */
export function splitAtCursor(buffer: InputBuffer): { before: string; under: string; after: string } {
  const next = nextBoundary(buffer.text, buffer.cursor);
  const under = buffer.text.slice(buffer.cursor, next);
  if (under === "" || under === "\n") return { before: buffer.text.slice(0, buffer.cursor), under: " ", after: buffer.text.slice(buffer.cursor) };
  return { before: buffer.text.slice(0, buffer.cursor), under, after: buffer.text.slice(next) };
}
