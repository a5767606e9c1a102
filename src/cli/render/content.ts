import type { ContentBlock, GetPromptResult, ReadResourceResult } from "@modelcontextprotocol/client";
import { base64Bytes } from "../../agent/tool-result.js";
import type { CallToolResult } from "../../mcp/types.js";
import type { Colors } from "./colors.js";
import { describeMedia, formatBytes } from "./media.js";
import { cleanTerminalText as clean } from "./terminal-text.js";

/**
 * How MCP content reads on a terminal: text as it is, structured content as indented
 * JSON, binary content (images, audio, blobs) as a one-line summary. Everything a
 * script may want raw is available through `--json` instead. Server text is cleaned of
 * terminal controls first; our dim labels are added after.
 */
export function renderContentBlock(block: ContentBlock, c: Colors): string {
  switch (block.type) {
    case "text":
      return clean(block.text);
    case "image":
    case "audio":
      return c.dim(clean(`[${describeMedia(block)}]`));
    case "resource_link":
      return c.dim(clean(`[resource link ${block.uri}${block.name && block.name !== block.uri ? ` "${block.name}"` : ""}${block.mimeType ? ` ${block.mimeType}` : ""}]`));
    case "resource": {
      const resource = block.resource;
      const label = c.dim(clean(`[resource ${resource.uri}${resource.mimeType ? ` ${resource.mimeType}` : ""}`));
      if ("text" in resource && typeof resource.text === "string") return `${label}${c.dim("]")}\n${clean(resource.text)}`;
      const blob = "blob" in resource && typeof resource.blob === "string" ? resource.blob : "";
      return `${label}${c.dim(`, ${formatBytes(base64Bytes(blob))}]`)}`;
    }
    default:
      return c.dim(clean(`[${(block as { type: string }).type} content]`));
  }
}

/** A tool result: its content blocks, then its structured content (once, where the text is the same JSON). */
export function renderToolResult(result: CallToolResult, c: Colors): string {
  const structured = result.structuredContent;
  if (structured !== undefined && textRepeats(result.content, structured)) return joinParts([clean(JSON.stringify(structured, null, 2))]);
  const parts = result.content.map((block) => renderContentBlock(block, c));
  if (structured !== undefined) parts.push(`${c.dim("structured content:")}\n${clean(JSON.stringify(structured, null, 2))}`);
  return joinParts(parts);
}

export function renderResourceContents(result: ReadResourceResult, c: Colors): string {
  const several = result.contents.length > 1;
  const parts = result.contents.map((content) => {
    const header = several ? `${c.dim(clean(`[${content.uri}${content.mimeType ? ` ${content.mimeType}` : ""}]`))}\n` : "";
    if ("text" in content && typeof content.text === "string") return header + clean(content.text);
    const blob = "blob" in content && typeof content.blob === "string" ? content.blob : "";
    return c.dim(clean(`[blob ${content.uri}${content.mimeType ? ` ${content.mimeType}` : ""}, ${formatBytes(base64Bytes(blob))}; use --json for the data]`));
  });
  return joinParts(parts);
}

export function renderPromptMessages(result: GetPromptResult, c: Colors): string {
  const parts = result.messages.map((message) => `${c.bold(c.cyan(`${message.role}:`))}\n${renderContentBlock(message.content, c)}`);
  if (result.description) parts.unshift(c.dim(clean(result.description)));
  return joinParts(parts, "\n\n");
}

function joinParts(parts: string[], separator = "\n"): string {
  const text = parts.join(separator);
  return text === "" || text.endsWith("\n") ? text : `${text}\n`;
}

/** Servers often send structuredContent and the same JSON as text; print it once. */
function textRepeats(content: ContentBlock[], structured: unknown): boolean {
  const texts = content.filter((block) => block.type === "text");
  if (texts.length !== 1 || content.length !== 1) return false;
  try {
    return JSON.stringify(JSON.parse(texts[0]!.text)) === JSON.stringify(structured);
  } catch {
    return false;
  }
}
