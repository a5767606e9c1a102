import type { ContentPart } from "../api.js";

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
          <pre key={index} class="result-text">{part.text}</pre>
        ) : (
          <p key={index} class="plain">{part.text}</p>
        ),
      )}
    </>
  );
}
