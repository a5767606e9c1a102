import { useState } from "preact/hooks";
import type { ContentPart } from "../api.js";

/** How much of a long result is drawn at first, and added by each "Show more": a result of 50 MB drawn whole freezes the page. */
export const SHOWN_CHARS = 64 * 1024;

/** A long text drawn a part at a time: the first SHOWN_CHARS, then more on each click, with how much is shown. */
function LongText({ text }: { text: string }) {
  const [shown, setShown] = useState(SHOWN_CHARS);
  if (text.length <= shown) return <pre class="result-text">{text}</pre>;
  return (
    <>
      <pre class="result-text">{text.slice(0, shown)}</pre>
      <p class="result-more">
        {(shown / 1024).toFixed(0)} kB of {(text.length / 1024).toFixed(0)} kB shown{" "}
        <button type="button" class="btn" onClick={() => setShown(shown + SHOWN_CHARS)}>
          Show more
        </button>
      </p>
    </>
  );
}

/** A message's or a tool result's content: text (as written, or as code), images shown, audio, documents and images at a URL named. */
export function Content({ content, asCode }: { content: string | ContentPart[]; asCode?: boolean }) {
  const parts: ContentPart[] = typeof content === "string" ? [{ type: "text", text: content }] : content;
  return (
    <>
      {parts.map((part, index) =>
        part.type === "image" ? (
          <img key={index} class="content-image" alt={`image (${part.mimeType})`} src={/^image\/[\w.+-]+$/.test(part.mimeType) ? `data:${part.mimeType};base64,${part.data}` : ""} />
        ) : part.type === "audio" || part.type === "image-url" || part.type === "document" ? (
          <p key={index} class="content-audio">
            {part.type === "audio" ? `[audio (${part.mimeType})]` : part.type === "document" ? `[document (${part.name ?? part.mimeType})]` : `[image (${part.url})]`}
          </p>
        ) : asCode ? (
          <LongText key={index} text={part.text} />
        ) : (
          <p key={index} class="plain">{part.text}</p>
        ),
      )}
    </>
  );
}
