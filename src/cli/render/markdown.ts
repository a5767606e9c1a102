import { Lexer, type Token, type Tokens } from "marked";
import stringWidth from "string-width";
import wrapAnsi from "wrap-ansi";
import { highlightCode } from "./code-highlight.js";
import type { Colors } from "./colors.js";
import { renderTable } from "./markdown-table.js";
import { cleanTerminalText } from "./terminal-text.js";

/**
 * Markdown for a terminal: marked reads it (CommonMark and GitHub's tables, task lists,
 * strike-through), and each token is drawn here with our colours, wrapped to `width` at word
 * boundaries (a word is cut only when it is longer than the line), lists and quotes with a
 * hanging indent, tables fitted to the width, fenced code highlighted. The text is cleaned of
 * terminal controls before it is read, so the only escape sequences in the output are our own
 * styling.
 */
export function renderMarkdown(source: string, c: Colors, width: number): string {
  const text = cleanTerminalText(source);
  const lines = blocks(Lexer.lex(text, { gfm: true }), c, Math.max(MIN_WIDTH, width));
  // A block that ends with its blank line (a finished block of a streamed answer) keeps it on screen.
  if (text.endsWith("\n") && lines.at(-1) !== "") lines.push("");
  return lines.join("\n");
}

/** Below this, indents and table borders would leave no room for text. */
const MIN_WIDTH = 20;
const RULE_WIDTH = 40;

function blocks(tokens: readonly Token[], c: Colors, width: number): string[] {
  return tokens.flatMap((token) => block(token, c, width));
}

function wrap(text: string, width: number): string[] {
  return wrapAnsi(text, width, { hard: true, trim: true }).split("\n");
}

function block(token: Token, c: Colors, width: number): string[] {
  const t = token as Tokens.Generic;
  switch (token.type) {
    case "space":
      return [""];
    case "heading": {
      const text = inline(t.tokens ?? [], c);
      return wrap((t as Tokens.Heading).depth === 1 ? c.bold(c.underline(text)) : c.bold(text), width);
    }
    case "paragraph":
    case "text":
      return wrap(t.tokens ? inline(t.tokens, c) : decode(String(t.text)), width);
    case "code": {
      const code = token as Tokens.Code;
      const language = (code.lang ?? "").split(/\s/)[0] ?? "";
      // Line by line, and only the lines too long: wrap-ansi's cost grows with the text, and a long block is redrawn as it streams.
      const body = highlightCode(code.text, language, c)
        .split("\n")
        .flatMap((line) => (stringWidth(line) > width ? wrapAnsi(line, width, { hard: true, wordWrap: false, trim: false }).split("\n") : [line]));
      return [c.dim(language ? `── ${language} ──` : "────"), ...body, c.dim("────")];
    }
    case "blockquote":
      return blocks((token as Tokens.Blockquote).tokens, c, width - 2).map((line) => `${c.dim("│")} ${line === "" ? "" : c.italic(line)}`);
    case "list":
      return list(token as Tokens.List, c, width);
    case "table":
      return table(token as Tokens.Table, c, width).split("\n");
    case "hr":
      return [c.dim("─".repeat(Math.min(width, RULE_WIDTH)))];
    case "html":
      return wrap(String(t.text).replace(/\n+$/, ""), width);
    case "def":
      return [];
    default:
      return wrap(String(t.raw ?? "").replace(/\n+$/, ""), width);
  }
}

function list(token: Tokens.List, c: Colors, width: number): string[] {
  const first = typeof token.start === "number" ? token.start : 1;
  return token.items.flatMap((item, index) => {
    const marker = item.task ? (item.checked ? "☑" : "☐") : token.ordered ? `${first + index}.` : "•";
    const indent = stringWidth(marker) + 1;
    const lines = blocks(
      item.tokens.filter((part) => part.type !== "checkbox"),
      c,
      width - indent,
    );
    while (lines.at(-1) === "") lines.pop();
    return lines.map((line, i) => (i === 0 ? `${c.dim(marker)} ${line}` : line === "" ? "" : " ".repeat(indent) + line));
  });
}

function table(token: Tokens.Table, c: Colors, width: number): string {
  const header = token.header.map((cell) => c.bold(inline(cell.tokens, c)));
  const rows = token.rows.map((row) => row.map((cell) => inline(cell.tokens, c)));
  return renderTable([header, ...rows], token.align.map((align) => align ?? "left"), width, c);
}

function inline(tokens: readonly Token[], c: Colors): string {
  return tokens.map((token) => inlineToken(token, c)).join("");
}

function inlineToken(token: Token, c: Colors): string {
  const t = token as Tokens.Generic;
  switch (token.type) {
    case "text":
      // A line break inside a paragraph is a space; the paragraph is re-wrapped to the width.
      return t.tokens ? inline(t.tokens, c) : decode(String(t.text)).replace(/\n/g, " ");
    case "escape":
      return String(t.text);
    case "strong":
      return c.bold(inline(t.tokens ?? [], c));
    case "em":
      return c.italic(inline(t.tokens ?? [], c));
    case "del":
      return c.strikethrough(inline(t.tokens ?? [], c));
    case "codespan":
      return c.cyan(String(t.text));
    case "br":
      return "\n";
    case "link": {
      const link = token as Tokens.Link;
      const label = inline(link.tokens, c);
      return link.text === link.href || `mailto:${link.text}` === link.href ? c.underline(label) : `${c.underline(label)} ${c.dim(`(${link.href})`)}`;
    }
    case "image": {
      const image = token as Tokens.Image;
      return c.dim(`[image: ${image.text}] (${image.href})`);
    }
    case "html":
      return /^<br\s*\/?>$/i.test(String(t.text)) ? "\n" : String(t.text);
    default:
      return String(t.raw ?? "");
  }
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", nbsp: " " };

/** The few entities models write; marked leaves them as they are. Numeric ones stay as written (they could name a control). */
function decode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_m, name: string) => ENTITIES[name] ?? "");
}
