import { Marked, type Tokens } from "marked";
import { escapeHtml } from "./escape.js";
import { highlight } from "./highlight.js";

/**
 * Markdown as the model writes it: any HTML in it shown as text, only web and mail links
 * (opening in a new tab, without the page's referrer), images only as data: URLs, fenced code
 * highlighted under a bar with its language and a copy button, tables in a scrolling frame.
 */
const marked = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    html: ({ text }) => escapeHtml(text),
    link({ href, tokens }) {
      const label = this.parser.parseInline(tokens);
      return /^(https?:|mailto:)/i.test(href) ? `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${label}</a>` : label;
    },
    image: ({ href, text }) => (/^data:image\//i.test(href) ? `<img src="${escapeHtml(href)}" alt="${escapeHtml(text)}">` : escapeHtml(text)),
    code({ text, lang }) {
      const language = (lang ?? "").trim().split(/\s+/)[0] ?? "";
      return (
        `<div class="code-block"><div class="code-bar"><span class="code-lang">${escapeHtml(language || "text")}</span>` +
        `<button type="button" class="copy-code">Copy</button></div>` +
        `<pre><code class="hljs">${highlight(text, language)}</code></pre></div>`
      );
    },
    table(token) {
      // marked's own table, inside a frame that scrolls sideways on a narrow screen.
      const cell = (tag: "th" | "td", { tokens, align }: Tokens.TableCell) => `<${tag}${align ? ` align="${align}"` : ""}>${this.parser.parseInline(tokens)}</${tag}>`;
      const head = token.header.map((header) => cell("th", header)).join("");
      const rows = token.rows.map((row) => `<tr>${row.map((data) => cell("td", data)).join("")}</tr>`).join("");
      return `<div class="table-frame" tabindex="0"><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
    },
  },
});

export function renderMarkdown(text: string): string {
  return marked.parse(text, { async: false });
}

/**
 * The text cut into blocks at blank lines outside code fences: while an answer streams, only its
 * last block changes, so only that one is parsed again (the others are kept as they were).
 */
export function markdownBlocks(text: string): string[] {
  const blocks: string[] = [];
  let fence: string | undefined;
  let start = 0;
  let position = 0;
  for (const line of text.split("\n")) {
    const end = position + line.length + 1;
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || (marker[0] === fence[0] && marker.length >= fence.length))) fence = fence === undefined ? marker : undefined;
    else if (fence === undefined && line.trim() === "" && position > start) {
      blocks.push(text.slice(start, position));
      start = end;
    }
    position = end;
  }
  if (start < text.length) blocks.push(text.slice(start));
  return blocks;
}
