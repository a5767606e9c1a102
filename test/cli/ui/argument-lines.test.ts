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

  it("shows edits of a file as a diff, old lines red, new ones green, never as one escaped line", () => {
    const edits = [
      { oldText: "function greet() {\n  return 'hi';\n}", newText: "function greet(name) {\n  return `hi ${name}`;\n}" },
      { oldText: "// end", newText: "// end\n// really" },
    ];
    const { lines, tones, whole } = argumentLines({ path: "/src/a.ts", edits, dryRun: false }, 80);
    expect(whole).toBe(true);
    expect(lines).toEqual([
      'path: "/src/a.ts"',
      "edits 1 of 2: 2 lines out, 2 in",
      "  - function greet() {",
      "  -   return 'hi';",
      "  + function greet(name) {",
      "  +   return `hi ${name}`;",
      "    }",
      "edits 2 of 2: 0 lines out, 1 in",
      "    // end",
      "  + // really",
      "dryRun: false",
    ]);
    expect(tones).toEqual([undefined, undefined, "removed", "removed", "added", "added", undefined, undefined, undefined, "added", undefined]);
    expect(lines.join("\n")).not.toContain("\\n");
  });

  it("shows a multi-line string inside an object as its lines, named by its path", () => {
    const { lines } = argumentLines({ files: [{ path: "a.txt", content: "one\ntwo" }] }, 80);
    expect(lines).toEqual(['files[0].path: "a.txt"', "files[0].content: (2 lines)", "  │ one", "  │ two"]);
  });
});
