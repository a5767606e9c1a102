import stringWidth from "string-width";
import wrapAnsi from "wrap-ansi";
import type { Colors } from "./colors.js";

export type ColumnAlign = "left" | "right" | "center";

/**
 * A table drawn with box lines, columns aligned by terminal cells (wide characters count
 * two) and fitted to `width`: the widest columns are narrowed and their cells wrapped at word
 * boundaries (a word longer than its column is the one thing cut). Cells come styled; the
 * styling is carried across the lines a cell wraps onto.
 */
export function renderTable(rows: readonly (readonly string[])[], align: readonly ColumnAlign[], width: number, c: Colors): string {
  const count = Math.max(1, ...rows.map((row) => row.length));
  const cells = rows.map((row) => Array.from({ length: count }, (_, i) => row[i] ?? ""));
  const widths = Array.from({ length: count }, (_, i) => Math.max(1, ...cells.map((row) => stringWidth(row[i] ?? ""))));
  // Borders and padding: "│ " + cells joined by " │ " + " │".
  const room = Math.max(count * 3, width - (3 * count + 1));
  while (widths.reduce((a, b) => a + b, 0) > room) {
    const widest = widths.indexOf(Math.max(...widths));
    if ((widths[widest] ?? 0) <= 3) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  const rule = (left: string, mid: string, right: string): string => c.dim(left + widths.map((w) => "─".repeat(w + 2)).join(mid) + right);
  const out = [rule("┌", "┬", "┐")];
  cells.forEach((row, r) => {
    const wrapped = row.map((cell, i) => wrapAnsi(cell, widths[i] ?? 1, { hard: true, trim: true }).split("\n"));
    const height = Math.max(...wrapped.map((lines) => lines.length));
    for (let line = 0; line < height; line++) {
      const shown = wrapped.map((lines, i) => {
        const text = lines[line] ?? "";
        const pad = Math.max(0, (widths[i] ?? 0) - stringWidth(text));
        const how = align[i] ?? "left";
        if (how === "right") return " ".repeat(pad) + text;
        if (how === "center") return " ".repeat(Math.floor(pad / 2)) + text + " ".repeat(Math.ceil(pad / 2));
        return text + " ".repeat(pad);
      });
      out.push(`${c.dim("│")} ${shown.join(` ${c.dim("│")} `)} ${c.dim("│")}`);
    }
    if (r === 0) out.push(rule("├", "┼", "┤"));
  });
  out.push(rule("└", "┴", "┘"));
  return out.join("\n");
}
