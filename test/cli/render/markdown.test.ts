import picocolors from "picocolors";
import stringWidth from "string-width";
import { beforeAll, describe, expect, it } from "vitest";
import { loadHighlighter } from "../../../src/cli/render/code-highlight.js";
import { renderMarkdown } from "../../../src/cli/render/markdown.js";

const on = picocolors.createColors(true);
const off = picocolors.createColors(false);
/** Every escape sequence in the text, whole. */
const ESCAPES = /\x1b\[[0-9;]*m|\x1b[^[]|\x1b\[[^m]*?[@-~]/g;
const SGR = /^\x1b\[[0-9;]*m$/;

const WORDS =
  "The quick brown fox jumps over the lazy dog while seventeen extraordinarily long-winded explanations about terminal rendering wander through the paragraph 台北 東京 and back again";

beforeAll(async () => {
  await loadHighlighter();
});

describe.each([60, 100])("a paragraph at %i columns", (width) => {
  const text = `${WORDS} ${WORDS} ${WORDS}`;
  const lines = renderMarkdown(text, off, width).split("\n");

  it("fits every line to the width", () => {
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(width);
  });

  it("breaks lines only between words", () => {
    expect(lines.join(" ").split(" ")).toEqual(text.split(" "));
  });

  it("fills lines: the next word would not have fitted", () => {
    for (let i = 0; i + 1 < lines.length; i++) {
      const next = (lines[i + 1] ?? "").split(" ")[0] ?? "";
      expect(stringWidth(`${lines[i]} ${next}`)).toBeGreaterThan(width);
    }
  });
});

describe("markdown in a terminal", () => {
  it("cuts a word only when it is longer than the line", () => {
    const long = "x".repeat(75);
    const lines = renderMarkdown(`short ${long} end`, off, 60).split("\n");
    // The long word fills the rest of its line and goes on in the next; the short ones stay whole.
    expect(lines).toEqual([`short ${"x".repeat(54)}`, `${"x".repeat(21)} end`]);
  });

  it("styles headings, emphasis, inline code and links with our colours", () => {
    const out = renderMarkdown("# Title\n\n## Part\n\na **b** *c* `**d**` [e](http://x) <http://y>", on, 80);
    expect(out).toBe(
      [on.bold(on.underline("Title")), "", on.bold("Part"), "", `a ${on.bold("b")} ${on.italic("c")} ${on.cyan("**d**")} ${on.underline("e")} ${on.dim("(http://x)")} ${on.underline("http://y")}`].join("\n"),
    );
  });

  it("draws lists with markers and a hanging indent, nested lists indented", () => {
    const out = renderMarkdown("- one two three four five six seven\n  - inner\n- [x] done\n- [ ] open\n\n3. third\n4. fourth", off, 24);
    expect(out.split("\n")).toEqual(["• one two three four", "  five six seven", "  • inner", "☑ done", "☐ open", "", "3. third", "4. fourth"]);
  });

  it("draws a quote with a bar on every wrapped line", () => {
    const lines = renderMarkdown("> one two three four five six seven eight nine ten", off, 24).split("\n");
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.startsWith("│ ")).toBe(true);
  });

  it("aligns a table and fits it to 60 columns", () => {
    const source = "| city | note |\n|:--|--:|\n| 台北 | a note long enough that the column has to wrap somewhere inside the table cell |\n| New York | **short** |";
    const lines = renderMarkdown(source, off, 60).split("\n");
    expect(lines[0]?.startsWith("┌")).toBe(true);
    expect(new Set(lines.map((line) => stringWidth(line))).size).toBe(1);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(60);
    expect(lines.some((line) => line.includes("│ New York │") && line.trimEnd().endsWith("short │"))).toBe(true);
  });

  it("keeps code lines as written, and never reads markdown inside them", () => {
    const out = renderMarkdown("```\n# not a heading **nor bold**\n  indented\n```", on, 80);
    expect(out.split("\n")).toEqual([on.dim("────"), "# not a heading **nor bold**", "  indented", on.dim("────")]);
  });

  it("highlights fenced code of a known language with SGR colours only", () => {
    const out = renderMarkdown('```ts\nconst answer: number = 42; // why\nreturn "text";\n```', on, 80);
    expect(out).toContain(on.magenta("const"));
    expect(out).toContain(on.yellow("42"));
    expect(out).toContain(on.green('"text"'));
    expect(out).toContain(on.dim("// why"));
    for (const sequence of out.match(ESCAPES) ?? []) expect(sequence).toMatch(SGR);
  });

  it("cleans hostile text in code blocks before styling it", () => {
    const hostile = "```js\nlet title = 1; \x1b]2;PWNED\x07 \x1b[8mhidden\x1b[0m \x9b31m \x07bell\n```\n\n`\x1b]0;x\x07inline` and text \x1b[2J";
    for (const colors of [on, off]) {
      const out = renderMarkdown(hostile, colors, 60);
      expect(out).not.toContain("PWNED");
      expect(out).not.toContain("\x07");
      expect(out).not.toContain("\x9b");
      expect(out).toContain("\\x07bell");
      for (const sequence of out.match(ESCAPES) ?? []) expect(sequence).toMatch(SGR);
      expect(out).not.toContain("\x1b[8m");
      expect(out).not.toContain("\x1b[2J");
    }
    expect(renderMarkdown(hostile, off, 60)).not.toContain("\x1b");
  });

  it("wraps long code lines at the width instead of letting them run off", () => {
    const lines = renderMarkdown(`\`\`\`\n${"a = 1; ".repeat(20)}\n\`\`\``, off, 60).split("\n");
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(60);
    expect(lines.length).toBe(5);
  });

  it("keeps the blank line that ends a finished block", () => {
    expect(renderMarkdown("para\n", off, 60)).toBe("para\n");
    expect(renderMarkdown("para", off, 60)).toBe("para");
  });
});
