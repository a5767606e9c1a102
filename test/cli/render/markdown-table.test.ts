import picocolors from "picocolors";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { renderTable } from "../../../src/cli/render/markdown-table.js";

const plain = picocolors.createColors(false);
const on = picocolors.createColors(true);

describe("markdown tables", () => {
  const rows = [
    ["city", "time"],
    ["台北", "22:30"],
    ["New York", "9:30"],
  ];

  it("aligns columns by terminal cells, wide characters counting two", () => {
    const lines = renderTable(rows, ["left", "right"], 80, plain).split("\n");
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

  it("measures styled cells by what shows, and keeps the style on every line a cell wraps onto", () => {
    const lines = renderTable([["k", "v"], ["a", on.bold("one two three four five six")]], ["left", "left"], 20, on).split("\n");
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(20);
    const body = lines.filter((line) => line.includes("one") || line.includes("five"));
    expect(body.length).toBeGreaterThan(1);
    for (const line of body) expect(line).toContain("\x1b[1m");
  });
});
