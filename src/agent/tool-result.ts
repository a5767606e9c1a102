import type { CallToolResult } from "../mcp/types.js";
import type { ContentPart } from "../llm/types.js";
import { partText } from "../llm/content-part.js";

/**
 * Turns what an MCP tool returned into what a model can read, and cuts it down to a size
 * that cannot blow the context window.
 */

export const DEFAULT_MAX_TOOL_RESULT_CHARS = 20_000;

/** The prefix that tells the model the tool itself failed. */
const TOOL_ERROR_PREFIX = "Error: the tool reported a failure.";

type ResultBlock = CallToolResult["content"][number];

/**
 * Whether a result's structuredContent says what its content does not: the spec has a server
 * repeat structured content as text, so text is taken to say it (or to be what a person
 * should read), and structured content counts only where there is no text.
 */
export function structuredContentAdds(result: CallToolResult): boolean {
  return result.structuredContent !== undefined && !(result.content ?? []).some((block) => block.type === "text");
}

/** What the tool said, as a model can read it: text parts joined; images kept as image parts; links and resources summarised; structuredContent when there is no text. */
export function resultBody(result: CallToolResult): string | ContentPart[] {
  const parts = (result.content ?? []).map(blockToPart);
  if (structuredContentAdds(result)) {
    parts.unshift({ type: "text", text: JSON.stringify(result.structuredContent) });
  }
  if (parts.every((part) => part.type === "text")) {
    const text = parts.map((part) => (part as { text: string }).text).join("\n");
    return text === "" ? "(the tool returned nothing)" : text;
  }
  return mergeAdjacentText(parts);
}

/** The body as the model gets it: a failure is marked, so the model does not read an error message as data. */
export function toModelContent(result: CallToolResult, body = resultBody(result)): string | ContentPart[] {
  if (!result.isError) return body;
  return typeof body === "string" ? `${TOOL_ERROR_PREFIX}\n${body}` : mergeAdjacentText([{ type: "text", text: TOOL_ERROR_PREFIX }, ...body]);
}

/** One MCP content block as a model reads it (also a prompt's message content). */
export function blockToPart(block: ResultBlock): ContentPart {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      return { type: "image", data: block.data, mimeType: block.mimeType };
    case "audio":
      return { type: "text", text: `[audio ${block.mimeType}, ${base64Bytes(block.data)} bytes, not shown]` };
    case "resource_link": {
      const about = [block.mimeType, block.description].filter(Boolean).join("; ");
      return { type: "text", text: `[resource link ${block.name}: ${block.uri}${about ? ` (${about})` : ""}]` };
    }
    case "resource": {
      const resource = block.resource;
      if ("text" in resource && typeof resource.text === "string") return { type: "text", text: `[resource ${resource.uri}]\n${resource.text}` };
      const blob = "blob" in resource && typeof resource.blob === "string" ? resource.blob : "";
      return { type: "text", text: `[binary resource ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ""}, ${base64Bytes(blob)} bytes, not shown]` };
    }
    default:
      return { type: "text", text: `[unsupported content type ${(block as { type: string }).type}]` };
  }
}

export function base64Bytes(data: string): number {
  // Malformed data ("=") must not count below zero.
  return Math.max(0, Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0));
}

function mergeAdjacentText(parts: ContentPart[]): ContentPart[] {
  const merged: ContentPart[] = [];
  for (const part of parts) {
    const last = merged[merged.length - 1];
    if (part.type === "text" && last?.type === "text") merged[merged.length - 1] = { type: "text", text: `${last.text}\n${part.text}` };
    else merged.push(part);
  }
  return merged;
}

/** Cuts the text of a tool result to `maxChars` in total, marking the cut where the model reads it. */
export function capToolContent(content: string | ContentPart[], maxChars: number): string | ContentPart[] {
  if (typeof content === "string") return capText(content, maxChars, content.length);
  const total = content.reduce((sum, part) => sum + (part.type === "text" ? part.text.length : 0), 0);
  if (total <= maxChars) return content;
  let budget = maxChars;
  const capped: ContentPart[] = [];
  for (const part of content) {
    if (part.type !== "text") capped.push(part);
    else if (budget > 0) {
      capped.push({ type: "text", text: capText(part.text, budget, total) });
      budget -= part.text.length;
    }
  }
  return capped;
}

function capText(text: string, maxChars: number, total: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[… result cut: showing the first ${maxChars} of ${total} characters]`;
}

/** One short line for progress displays. */
export function summarizeContent(content: string | ContentPart[], maxChars = 160): string {
  const text =
    typeof content === "string"
      ? content
      : content.map(partText).join(" ");
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= maxChars ? line : `${line.slice(0, maxChars - 1)}…`;
}
