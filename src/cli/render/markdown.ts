import type { Colors } from "./colors.js";
import { displayWidth } from "./table.js";

/**
 * A small terminal renderer for the markdown models write: headings, bold, italics,
 * inline code, fenced code blocks, lists, quotes, rules and links. Line by line, so it
 * can follow a stream; `inCode` carries the one piece of state between lines.
 */
export interface MarkdownState {
  inCode: boolean;
}

export function renderMarkdownLine(line: string, state: MarkdownState, c: Colors): string {
  const fence = /^\s*(```|~~~)\s*(\S*)/.exec(line);
  if (fence) {
    state.inCode = !state.inCode;
    return c.dim(state.inCode && fence[2] ? `── ${fence[2]} ──` : "────");
  }
  if (state.inCode) return c.cyan(line);

  const heading = /^(#{1,6})\s+(.*)$/.exec(line);
  if (heading) {
    const text = renderInline(heading[2] ?? "", c);
    return heading[1] === "#" ? c.bold(c.underline(text)) : c.bold(text);
  }
  if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return c.dim("─".repeat(40));
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (bullet) {
    const task = /^\[([ xX])\]\s+(.*)$/.exec(bullet[2] ?? "");
    const mark = task ? (task[1] === " " ? "☐" : "☑") : "•";
    return `${bullet[1]}${c.dim(mark)} ${renderInline(task ? (task[2] ?? "") : (bullet[2] ?? ""), c)}`;
  }
  const numbered = /^(\s*)(\d+[.)])\s+(.*)$/.exec(line);
  if (numbered) return `${numbered[1]}${c.dim(numbered[2] ?? "")} ${renderInline(numbered[3] ?? "", c)}`;
  const quote = /^\s*>\s?(.*)$/.exec(line);
  if (quote) return `${c.dim("│")} ${c.italic(renderInline(quote[1] ?? "", c))}`;
  return renderInline(line, c);
}

/** Inline code first, so that `**` inside backticks stays literal. */
export function renderInline(text: string, c: Colors): string {
  return text
    .split(/(`[^`]+`)/)
    .map((piece, index) => {
      if (index % 2 === 1) return c.cyan(piece.slice(1, -1));
      return piece
        .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, (_m, inner: string) => c.bold(inner))
        .replace(/__(?=\S)(.+?)(?<=\S)__/g, (_m, inner: string) => c.bold(inner))
        .replace(/(^|[^*\w])\*(?=\S)([^*]+?)(?<=\S)\*(?!\*)/g, (_m, before: string, inner: string) => before + c.italic(inner))
        .replace(/(^|\W)_(?=\S)([^_]+?)(?<=\S)_(?!\w)/g, (_m, before: string, inner: string) => before + c.italic(inner))
        .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, label: string, url: string) => `${c.underline(label)} ${c.dim(`(${url})`)}`);
    })
    .join("");
}

/**
 * Follows a stream of text deltas: shows each delta at once, and when a line is complete
 * rewrites it rendered (moving the cursor up over the rows it wrapped onto).
 */
export class StreamingMarkdown {
  private line = "";
  private readonly state: MarkdownState = { inCode: false };

  constructor(
    private readonly write: (text: string) => void,
    private readonly colors: Colors,
    private readonly columns: () => number,
  ) {}

  push(delta: string): void {
    let start = 0;
    for (let nl = delta.indexOf("\n"); nl !== -1; nl = delta.indexOf("\n", start)) {
      const piece = delta.slice(start, nl);
      this.write(piece);
      this.line += piece;
      this.completeLine();
      start = nl + 1;
    }
    const rest = delta.slice(start);
    if (rest !== "") {
      this.write(rest);
      this.line += rest;
    }
  }

  /** Renders the unfinished last line, at the end of the reply. */
  end(): void {
    if (this.line !== "") {
      this.rewrite();
      this.write("\n");
    }
    this.line = "";
    this.state.inCode = false;
  }

  private completeLine(): void {
    this.rewrite();
    this.write("\n");
    this.line = "";
  }

  private rewrite(): void {
    const rendered = renderMarkdownLine(this.line, this.state, this.colors);
    if (rendered === this.line) return;
    const width = Math.max(1, this.columns());
    const rows = Math.max(1, Math.ceil(displayWidth(this.line) / width));
    this.write(`${rows > 1 ? `\x1b[${rows - 1}A` : ""}\r\x1b[0J${rendered}`);
  }
}
