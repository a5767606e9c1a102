import type { ContentPart, Message } from "../llm/types.js";
import { escapeHtml, renderMarkdown } from "./markdown.js";

/** What the page shows of a conversation: user messages, and per model reply its reasoning, text and tool calls. */

export interface ToolCallView {
  id: string;
  name: string;
  arguments: unknown;
  /** Until the result is in: the one-line summary the agent gives. */
  summary?: string;
  outcome?: string;
  isError?: boolean;
  result?: string | ContentPart[];
  /** An approval waiting for the person. */
  approvalId?: string;
}

export type Item = { role: "user"; content: string | ContentPart[] } | { role: "assistant"; text: string; reasoning: string; toolCalls: ToolCallView[] };

/** The items of stored messages: each tool result goes under the call it answers. */
export function itemsOf(messages: readonly Message[]): Item[] {
  const items: Item[] = [];
  const calls = new Map<string, ToolCallView>();
  for (const message of messages) {
    if (message.role === "user") items.push({ role: "user", content: message.content });
    else if (message.role === "assistant") {
      const toolCalls = (message.toolCalls ?? []).map((call): ToolCallView => ({ id: call.id, name: call.name, arguments: parseArguments(call.arguments) }));
      for (const call of toolCalls) calls.set(call.id, call);
      items.push({ role: "assistant", text: message.content, reasoning: message.reasoning ?? "", toolCalls });
    } else if (message.role === "tool") {
      const call = calls.get(message.toolCallId);
      if (call) {
        call.result = message.content;
        call.isError = message.isError === true;
        call.outcome = message.isError ? "error" : "ok";
      }
    }
  }
  return items;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function renderItems(items: readonly Item[]): string {
  return items.map(renderItem).join("");
}

function renderItem(item: Item): string {
  if (item.role === "user") return `<article class="msg user" aria-label="You">${renderContent(item.content, false)}</article>`;
  const reasoning = item.reasoning.trim() === "" ? "" : `<details class="reasoning"><summary>Reasoning</summary><div class="reasoning-text">${escapeHtml(item.reasoning)}</div></details>`;
  const tools = item.toolCalls.map(renderToolCall).join("");
  const text = item.text === "" ? "" : `<div class="markdown">${renderMarkdown(item.text)}</div>`;
  return `<article class="msg assistant" aria-label="Assistant">${reasoning}${text}${tools}</article>`;
}

function renderToolCall(call: ToolCallView): string {
  const state = call.approvalId ? "waiting for approval" : (call.outcome ?? "running…");
  const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments, null, 2);
  const result = call.result !== undefined ? renderContent(call.result, true) : call.summary !== undefined ? `<pre>${escapeHtml(call.summary)}</pre>` : "";
  const approval = call.approvalId
    ? `<div class="approval" role="group" aria-label="Approve ${escapeHtml(call.name)}"><span>Run <b>${escapeHtml(call.name)}</b>?</span>` +
      `<button type="button" class="allow" data-approval="${escapeHtml(call.approvalId)}" data-decision="allow-once">Allow</button>` +
      `<button type="button" class="deny" data-approval="${escapeHtml(call.approvalId)}" data-decision="deny">Deny</button></div>`
    : "";
  return (
    `<details class="tool${call.isError ? " failed" : ""}" data-call="${escapeHtml(call.id)}"${call.approvalId ? " open" : ""}>` +
    `<summary><span class="tool-name">${escapeHtml(call.name)}</span> <span class="tool-state">${escapeHtml(state)}</span></summary>` +
    `<div class="tool-body"><div class="label">Arguments</div><pre>${escapeHtml(args)}</pre>${result ? `<div class="label">Result</div>${result}` : ""}</div></details>${approval}`
  );
}

function renderContent(content: string | ContentPart[], asCode: boolean): string {
  const parts: ContentPart[] = typeof content === "string" ? [{ type: "text", text: content }] : content;
  return parts
    .map((part) =>
      part.type === "image"
        ? `<img class="content-image" alt="image (${escapeHtml(part.mimeType)})" src="data:${escapeHtml(part.mimeType)};base64,${escapeHtml(part.data)}">`
        : part.type === "audio"
          ? `<p class="content-audio">[audio (${escapeHtml(part.mimeType)})]</p>`
          : asCode
            ? `<pre>${escapeHtml(part.text)}</pre>`
            : `<p>${escapeHtml(part.text)}</p>`,
    )
    .join("");
}
