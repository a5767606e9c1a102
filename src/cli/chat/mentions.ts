import type { ReadResourceResult } from "@modelcontextprotocol/client";
import { base64Bytes } from "../../agent/tool-result.js";
import type { ContentPart } from "../../llm/types.js";

/**
 * `@uri` in a message: the resource is read and its content attached to the message, after
 * the text the user typed (which keeps the mention, so the model knows what is meant). Only
 * a word that starts with `@` and a URI scheme is a mention: `@alice` and `me@example.com`
 * stay text. Text and images are attached; other binary content is named in a note.
 */

/** At most this many resources per message. */
export const MAX_MENTIONS = 10;
/** The text of all resources attached to one message, in characters. */
export const MAX_ATTACHED_CHARS = 100_000;
/** One image's size. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const MENTION = /(?<=^|\s)@([a-zA-Z][a-zA-Z0-9+.-]*:[^\s]+)/g;
/** Sentence punctuation after a mention is not part of the URI. */
const TRAILING = /[.,;:!?)\]}'"]+$/;

/** The URIs a message mentions, each once, in order. */
export function findMentions(text: string): string[] {
  const uris: string[] = [];
  for (const match of text.matchAll(MENTION)) {
    const uri = match[1]!.replace(TRAILING, "");
    if (!uri.endsWith(":") && !uris.includes(uri)) uris.push(uri);
  }
  return uris;
}

export interface Attachment {
  uri: string;
  /** What happened to it, one line for the screen: `text/plain, 1.2 KB` or why it was not attached. */
  note: string;
  attached: boolean;
}

/** `@docs://a: attached, text/plain, 16 characters`, for the screen (the caller cleans it). */
export function describeAttachment({ uri, note, attached }: Attachment): string {
  return `@${uri}: ${attached ? "attached, " : ""}${note}`;
}

/** The message with the content of the resources it mentions, and what was done with each. */
export async function attachMentions(
  text: string,
  read: (uri: string) => Promise<ReadResourceResult>,
): Promise<{ content: string | ContentPart[]; attachments: Attachment[] }> {
  const uris = findMentions(text);
  if (uris.length === 0) return { content: text, attachments: [] };
  const parts: ContentPart[] = [{ type: "text", text }];
  const attachments: Attachment[] = [];
  let budget = MAX_ATTACHED_CHARS;
  for (const [index, uri] of uris.entries()) {
    if (index >= MAX_MENTIONS) {
      attachments.push({ uri, attached: false, note: `not attached: a message attaches at most ${MAX_MENTIONS} resources` });
      continue;
    }
    let result: ReadResourceResult;
    try {
      result = await read(uri);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      attachments.push({ uri, attached: false, note: `not attached: ${why}` });
      parts.push({ type: "text", text: `[resource ${uri} could not be read: ${why}]` });
      continue;
    }
    for (const content of result.contents) {
      const label = `${content.uri}${content.mimeType ? ` (${content.mimeType})` : ""}`;
      if ("text" in content && typeof content.text === "string") {
        if (content.text.length > budget) {
          const note = `not attached: ${content.text.length.toLocaleString("en-US")} characters, over the ${MAX_ATTACHED_CHARS.toLocaleString("en-US")} a message may attach`;
          attachments.push({ uri: content.uri, attached: false, note });
          parts.push({ type: "text", text: `[resource ${label} not attached: too large]` });
          continue;
        }
        budget -= content.text.length;
        attachments.push({ uri: content.uri, attached: true, note: `${content.mimeType ?? "text"}, ${formatSize(content.text.length, "characters")}` });
        parts.push({ type: "text", text: `[resource ${label}]\n${content.text}` });
        continue;
      }
      const blob = "blob" in content && typeof content.blob === "string" ? content.blob : "";
      const bytes = base64Bytes(blob);
      const mimeType = content.mimeType ?? "application/octet-stream";
      if (mimeType.startsWith("image/") && bytes <= MAX_IMAGE_BYTES) {
        attachments.push({ uri: content.uri, attached: true, note: `${mimeType}, ${formatSize(bytes, "bytes")}` });
        parts.push({ type: "text", text: `[resource ${label}]` }, { type: "image", data: blob, mimeType });
        continue;
      }
      const why = mimeType.startsWith("image/") ? `over the ${formatSize(MAX_IMAGE_BYTES, "bytes")} an image may have` : "binary content is attached only when it is an image";
      attachments.push({ uri: content.uri, attached: false, note: `not attached: ${mimeType}, ${formatSize(bytes, "bytes")}; ${why}` });
      parts.push({ type: "text", text: `[resource ${label}: ${formatSize(bytes, "bytes")} of binary content, not attached]` });
    }
  }
  return { content: mergeText(parts), attachments };
}

function mergeText(parts: ContentPart[]): string | ContentPart[] {
  const merged: ContentPart[] = [];
  for (const part of parts) {
    const last = merged.at(-1);
    if (part.type === "text" && last?.type === "text") merged[merged.length - 1] = { type: "text", text: `${last.text}\n\n${part.text}` };
    else merged.push(part);
  }
  return merged.length === 1 && merged[0]!.type === "text" ? merged[0]!.text : merged;
}

function formatSize(count: number, unit: "characters" | "bytes"): string {
  if (count < 1024) return `${count} ${unit}`;
  const short = unit === "bytes" ? "B" : "chars";
  if (count < 1024 * 1024) return `${(count / 1024).toFixed(1)} K${short}`;
  return `${(count / (1024 * 1024)).toFixed(1)} M${short}`;
}
