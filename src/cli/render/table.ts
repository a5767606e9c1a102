import type { Colors } from "./colors.js";
import { cleanTerminalText } from "./terminal-text.js";

export interface Column<Row> {
  header: string;
  /** The cell's plain text; colour is applied after widths are measured. */
  value: (row: Row) => string;
  color?: (text: string, row: Row) => string;
  align?: "left" | "right";
  /** May be cut with "…" to fit the width; these are cut first. */
  shrink?: boolean;
  /** Never cut (a URI cut in the middle is no use); the line may wrap instead. */
  whole?: boolean;
  /**
   * Left out when the table is still too wide once shrinkable columns are cut: the column
   * with the highest number goes first. Columns without it are cut instead (to 4 at least).
   */
  dropOrder?: number;
}

/**
 * A plain-text table with a dim header, two spaces between columns and no borders
 * (easy to read, easy to grep). With `maxWidth`, shrinkable columns are cut so that no
 * line wraps on the terminal.
 */
export function renderTable<Row>(allColumns: readonly Column<Row>[], rows: readonly Row[], options: { colors: Colors; maxWidth?: number }): string {
  // Cells hold server text: cleaned before measuring, coloured after.
  const allCells = rows.map((row) => allColumns.map((column) => oneLine(cleanTerminalText(column.value(row)))));
  const allWidths = allColumns.map((column, i) => Math.max(column.header.length, ...allCells.map((line) => displayWidth(line[i]!))));
  const shown = fitWidths(allColumns, allWidths, options.maxWidth);
  const columns = shown.map((i) => allColumns[i]!);
  const widths = shown.map((i) => allWidths[i]!);
  const cells = allCells.map((line) => shown.map((i) => line[i]!));
  const gap = "  ";
  const lastIndex = columns.length - 1;
  const format = (text: string, i: number, paint: (text: string) => string) => {
    const column = columns[i]!;
    const cut = truncate(text, widths[i]!);
    const pad = " ".repeat(Math.max(0, widths[i]! - displayWidth(cut)));
    if (column.align === "right") return pad + paint(cut);
    // No trailing spaces after the last column.
    return paint(cut) + (i === lastIndex ? "" : pad);
  };
  const header = columns.map((column, i) => format(column.header, i, options.colors.dim)).join(gap);
  const body = rows.map((row, r) =>
    columns
      .map((column, i) => format(cells[r]![i]!, i, (text) => (column.color ? column.color(text, row) : text)))
      .join(gap)
      .trimEnd(),
  );
  return [header.trimEnd(), ...body].join("\n") + "\n";
}

/** Narrows `widths` to fit `maxWidth`; returns the indexes of the columns shown. */
function fitWidths<Row>(columns: readonly Column<Row>[], widths: number[], maxWidth: number | undefined): number[] {
  const shown = columns.map((_, i) => i);
  if (maxWidth === undefined) return shown;
  const excess = () => shown.reduce((sum, i) => sum + widths[i]!, 0) + 2 * (shown.length - 1) - maxWidth;
  // Cut the widest shrinkable column first, never below its header or 10 characters.
  narrow(shown, widths, excess(), (i) => (columns[i]!.shrink ? Math.max(columns[i]!.header.length, 10) : Infinity));
  // Then leave out the least important columns, one by one.
  const droppable = shown.filter((i) => columns[i]!.dropOrder !== undefined).sort((a, b) => columns[b]!.dropOrder! - columns[a]!.dropOrder!);
  for (const i of droppable) {
    if (excess() <= 0) break;
    shown.splice(shown.indexOf(i), 1);
  }
  // When that is not enough, any column but a whole one, down to 4, so that no line wraps on the terminal.
  narrow(shown, widths, excess(), (i) => (columns[i]!.whole ? Infinity : 4));
  return shown;
}

/** Takes `excess` cells off the widest columns of `shown` above their floor. */
function narrow(shown: readonly number[], widths: number[], excess: number, floor: (i: number) => number): void {
  while (excess > 0) {
    let widest = -1;
    for (const i of shown) if (widths[i]! > floor(i) && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    if (widest < 0) return;
    widths[widest]!--;
    excess--;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\r?\n\s*/g, " ").replace(/\t/g, " ");
}

// East Asian wide and fullwidth characters (CJK, Hangul, fullwidth forms) and most
// emoji take two terminal cells; server descriptions are often written in Chinese.
const WIDE = /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F300}-\u{1F64F}\u{1F900}-\u{1F9FF}\u{20000}-\u{3FFFD}]/u;

function charWidth(char: string): number {
  return WIDE.test(char) ? 2 : 1;
}

/** Terminal cells the text takes (no ANSI codes inside). */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) width += charWidth(char);
  return width;
}

/** Cuts the text to at most `width` cells, marking the cut with "…". */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let out = "";
  let used = 0;
  for (const char of text) {
    const w = charWidth(char);
    if (used + w > width - 1) break;
    out += char;
    used += w;
  }
  return `${out}…`;
}
