import stringWidth from "string-width";
import type { Colors } from "../render/colors.js";
import { renderInline } from "../render/markdown.js";

const SEPARATOR = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;

/** Whether `lines[index]` opens a markdown table (a row, then the `|---|` line). */
export function isTableStart(lines: readonly string[], index: number): boolean {
  return (lines[index] ?? "").includes("|") && SEPARATOR.test(lines[index + 1] ?? "") && (lines[index + 1] ?? "").includes("-");
}

/** The table's rows from `index` on, and the index after it. */
export function takeTable(lines: readonly string[], index: number): { rows: string[][]; align: Array<"left" | "right" | "center">; next: number } {
  const cells = (line: string): string[] =>
    line
      .trim()
      .replace(/^\|/, "")
      .replace(/\|$/, "")
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim().replace(/\\\|/g, "|"));
  const header = cells(lines[index] ?? "");
  const align = cells(lines[index + 1] ?? "").map((spec) => (spec.startsWith(":") && spec.endsWith(":") ? "center" : spec.endsWith(":") ? "right" : "left"));
  const rows = [header];
  let next = index + 2;
  while (next < lines.length && (lines[next] ?? "").includes("|") && (lines[next] ?? "").trim() !== "") rows.push(cells(lines[next++] ?? ""));
  return { rows, align, next };
}

/** Plain text as markdown writes it in a cell, without the marks (for measuring). */
function plain(text: string): string {
  return text.replace(/\*\*|__|`/g, "").replace(/\[([^\]]+)\]\([^)]*\)/g, "$1");
}

function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let rest = word;
    // A word longer than the column is cut: the one case where a word must break.
    while (stringWidth(rest) > width) {
      if (line !== "") lines.push(line);
      line = "";
      let cut = "";
      for (const char of rest) {
        if (stringWidth(cut + char) > width) break;
        cut += char;
      }
      lines.push(cut);
      rest = rest.slice(cut.length);
    }
    if (rest === "") continue;
    const candidate = line === "" ? rest : `${line} ${rest}`;
    if (stringWidth(candidate) <= width) line = candidate;
    else {
      lines.push(line);
      line = rest;
    }
  }
  if (line !== "" || lines.length === 0) lines.push(line);
  return lines;
}

/**
 * A markdown table drawn with box lines, columns aligned by terminal cells (wide characters
 * count two) and fitted to `width`: the widest columns are narrowed and their cells wrapped at
 * word boundaries.
 */
export function renderTable(rows: string[][], align: ReadonlyArray<"left" | "right" | "center">, width: number, c: Colors): string {
  const count = Math.max(...rows.map((row) => row.length));
  const texts = rows.map((row) => Array.from({ length: count }, (_, i) => plain(row[i] ?? "")));
  const widths = Array.from({ length: count }, (_, i) => Math.max(1, ...texts.map((row) => stringWidth(row[i] ?? ""))));
  // Borders and padding: "│ " + cells joined by " │ " + " │".
  const room = Math.max(count * 3, width - (3 * count + 1));
  while (widths.reduce((a, b) => a + b, 0) > room) {
    const widest = widths.indexOf(Math.max(...widths));
    if ((widths[widest] ?? 0) <= 3) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  const rule = (left: string, mid: string, right: string): string => c.dim(left + widths.map((w) => "─".repeat(w + 2)).join(mid) + right);
  const out = [rule("┌", "┬", "┐")];
  texts.forEach((row, r) => {
    const wrapped = row.map((cell, i) => wrapWords(cell, widths[i] ?? 1));
    const height = Math.max(...wrapped.map((lines) => lines.length));
    for (let line = 0; line < height; line++) {
      const cells = wrapped.map((lines, i) => {
        const text = lines[line] ?? "";
        const pad = (widths[i] ?? 0) - stringWidth(text);
        const styled = r === 0 ? c.bold(text) : renderInline(text, c);
        const how = align[i] ?? "left";
        if (how === "right") return " ".repeat(pad) + styled;
        if (how === "center") return " ".repeat(Math.floor(pad / 2)) + styled + " ".repeat(Math.ceil(pad / 2));
        return styled + " ".repeat(pad);
      });
      out.push(`${c.dim("│")} ${cells.join(` ${c.dim("│")} `)} ${c.dim("│")}`);
    }
    if (r === 0) out.push(rule("├", "┼", "┤"));
  });
  out.push(rule("└", "┴", "┘"));
  return out.join("\n");
}
