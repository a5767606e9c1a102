import { base64Bytes, resultBody, structuredContentAdds, summarizeContent } from "../../agent/tool-result.js";
import type { CallToolResult } from "../../mcp/types.js";
import { cleanTerminalText } from "./terminal-text.js";

/**
 * What a terminal can say about an image or a sound a tool returned: its type, its size in
 * bytes and, for the common image formats, its size in pixels, read from the file's header
 * (no decoder, and only the first part of the data is decoded from base64).
 */

/** Enough for a JPEG's size marker after a large EXIF block; more is not read. */
const HEADER_BYTES = 256 * 1024;

export interface MediaBlock {
  type: "image" | "audio";
  mimeType: string;
  data: string;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** `image image/png, 20×20 px, 1.2 KB` (not yet cleaned: the MIME type is the server's). */
export function describeMedia(block: MediaBlock): string {
  const size = block.type === "image" ? imageSize(Buffer.from(block.data.slice(0, (HEADER_BYTES / 3) * 4), "base64")) : undefined;
  const pixels = size ? `, ${size.width}×${size.height} px` : "";
  return `${block.type} ${block.mimeType}${pixels}, ${formatBytes(base64Bytes(block.data))}`;
}

/** The width and height of a PNG, GIF, WebP or JPEG image, from its first bytes; undefined for anything else. */
export function imageSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ascii = (start: number, end: number): string => view.toString("latin1", start, end);
  if (view.length >= 24 && ascii(1, 4) === "PNG" && ascii(12, 16) === "IHDR") return { width: view.readUInt32BE(16), height: view.readUInt32BE(20) };
  if (view.length >= 10 && (ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a")) return { width: view.readUInt16LE(6), height: view.readUInt16LE(8) };
  if (view.length >= 30 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return webpSize(view, ascii(12, 16));
  if (view.length >= 4 && view[0] === 0xff && view[1] === 0xd8) return jpegSize(view);
  return undefined;
}

function webpSize(view: Buffer, chunk: string): { width: number; height: number } | undefined {
  switch (chunk) {
    case "VP8 ":
      return { width: view.readUInt16LE(26) & 0x3fff, height: view.readUInt16LE(28) & 0x3fff };
    case "VP8L": {
      const bits = view.readUInt32LE(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    case "VP8X":
      return { width: view.readUIntLE(24, 3) + 1, height: view.readUIntLE(27, 3) + 1 };
    default:
      return undefined;
  }
}

/** Walks the JPEG's segments to the first start-of-frame marker, which holds the size. */
function jpegSize(view: Buffer): { width: number; height: number } | undefined {
  let at = 2;
  while (at + 9 <= view.length) {
    if (view[at] !== 0xff) return undefined;
    const marker = view[at + 1] ?? 0;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { width: view.readUInt16BE(at + 7), height: view.readUInt16BE(at + 5) };
    at += 2 + view.readUInt16BE(at + 2);
  }
  return undefined;
}

/** One cleaned line for each image and sound in a tool's result (a tool block lists them). */
export function describeMediaIn(result: CallToolResult | undefined): string[] {
  return (result?.content ?? []).flatMap((block) => (block.type === "image" || block.type === "audio" ? [cleanTerminalText(describeMedia(block))] : []));
}

/** A result's one-line summary without its images and sounds, which describeMediaIn gives lines of their own ("" when they are all it holds). */
export function summaryBesideMedia(result: CallToolResult): string {
  const rest = { ...result, content: result.content.filter((block) => block.type !== "image" && block.type !== "audio") };
  return rest.content.length === 0 && !structuredContentAdds(rest) ? "" : summarizeContent(resultBody(rest));
}
