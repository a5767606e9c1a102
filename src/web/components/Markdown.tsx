import { memo } from "preact/compat";
import { markdownBlocks, renderMarkdown } from "../markdown.js";
import { copyText } from "./copy.js";

/** One block of markdown, parsed once per distinct text (memo): a streaming answer re-parses only its last block. */
const Block = memo(function Block({ text }: { text: string }) {
  return <div class="md-block" dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />;
});

/** The model's markdown (HTML in it shown as text: see markdown.ts), with copy buttons on code. */
export function Markdown({ text }: { text: string }) {
  const onClick = (event: MouseEvent) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>(".copy-code");
    const code = button?.closest(".code-block")?.querySelector("code");
    if (!button || !code) return;
    void copyText(code.textContent ?? "").then(() => {
      button.textContent = "Copied";
      setTimeout(() => (button.textContent = "Copy"), 1500);
    });
  };
  return (
    <div class="markdown" onClick={onClick}>
      {markdownBlocks(text).map((block, index) => (
        <Block key={index} text={block} />
      ))}
    </div>
  );
}
