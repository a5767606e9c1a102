import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { argumentLines, MAX_ARGUMENT_LINES } from "../../../src/cli/ui/argument-lines.js";

describe("the arguments an approval shows", () => {
  it("shows every argument and every string whole, a multi-line string as its lines", () => {
    const content = `${"x".repeat(300)}\nline 4 harmless; rm -rf /`;
    const { lines, whole } = argumentLines({ path: "/tmp/a.sh", content, mode: { append: false } }, 60);
    expect(whole).toBe(true);
    expect(lines[0]).toBe('path: "/tmp/a.sh"');
    expect(lines[1]).toBe("content: (2 lines)");
    expect(lines.join("\n")).toContain("rm -rf /");
    expect(lines.filter((line) => line.startsWith("  │ ")).map((line) => line.slice(4)).join("")).toBe(content.replace("\n", ""));
    expect(lines.slice(-3)).toEqual(["mode: {", '  "append": false', "}"]);
  });

  it("wraps to the width given, wide characters by their width", () => {
    const { lines } = argumentLines({ text: "現在".repeat(100), note: "a".repeat(500) }, 40);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(40);
    expect(lines.join("").replace(/[^現在]/g, "")).toBe("現在".repeat(100));
  });

  it("shows control characters and escape sequences as what they are instead of acting on them or dropping them", () => {
    const { lines } = argumentLines({ content: "ok\x1b[8mhidden\rover\x07\nnext\u202eevil" }, 80);
    const text = lines.join("\n");
    expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(text).toContain("ok\\x1b[8mhidden\\x0dover\\x07");
    expect(text).toContain("\\u202e");
  });

  it("lays out a huge argument only up to a bound, and says it cannot be reviewed whole", () => {
    const { lines, whole } = argumentLines({ content: "line\n".repeat(MAX_ARGUMENT_LINES * 2) }, 80);
    expect(whole).toBe(false);
    expect(lines).toHaveLength(MAX_ARGUMENT_LINES + 1);
    expect(lines.at(-1)).toMatch(/too long to review here/);
  });

  it("cuts one enormous line at the same bound", () => {
    const { lines, whole } = argumentLines({ content: "y".repeat(20_000_000) }, 80);
    expect(whole).toBe(false);
    expect(lines).toHaveLength(MAX_ARGUMENT_LINES + 1);
  });
});
