import picocolors from "picocolors";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { isTableStart, renderTable, takeTable } from "../../../src/cli/ui/markdown-table.js";

const plain = picocolors.createColors(false);

describe("markdown tables", () => {
  const source = ["| city | time |", "|:-----|-----:|", "| 台北 | 22:30 |", "| New York | 9:30 |", "", "after"];

  it("finds a table and its rows, and where it ends", () => {
    expect(isTableStart(source, 0)).toBe(true);
    expect(isTableStart(["a | b", "not a rule"], 0)).toBe(false);
    const table = takeTable(source, 0);
    expect(table.rows).toEqual([["city", "time"], ["台北", "22:30"], ["New York", "9:30"]]);
    expect(table.align).toEqual(["left", "right"]);
    expect(table.next).toBe(4);
  });

  it("aligns columns by terminal cells, wide characters counting two", () => {
    const { rows, align } = takeTable(source, 0);
    const lines = renderTable(rows, align, 80, plain).split("\n");
    const widths = new Set(lines.map((line) => stringWidth(line)));
    expect(widths.size).toBe(1);
    expect(lines).toContain("│ 台北     │ 22:30 │");
    expect(lines).toContain("│ New York │  9:30 │");
  });

  it("fits a wide table to the width, wrapping cells at word boundaries", () => {
    const long = "a sentence that is much too long to fit in one narrow column of the table";
    const lines = renderTable([["name", "description"], ["x", long]], ["left", "left"], 40, plain).split("\n");
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(40);
    const words = lines.flatMap((line) => line.split("│").map((cell) => cell.trim())).join(" ").split(/\s+/);
    for (const word of long.split(" ")) expect(words).toContain(word);
  });
});
