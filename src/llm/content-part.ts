import type { ContentPart } from "./types.js";

/** A part as text: its text, or one label naming what is not text (`[image image/png]`, `[image https://…]`). */
export function partText(part: ContentPart): string {
  switch (part.type) {
    case "text":
      return part.text;
    case "image-url":
      return `[image ${part.url}]`;
    case "document":
      return `[document ${part.name ?? part.mimeType}]`;
    default:
      return `[${part.type} ${part.mimeType}]`;
  }
}
