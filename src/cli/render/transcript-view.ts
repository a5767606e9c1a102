import type { Message } from "../../llm/types.js";
import { partText } from "../../llm/content-part.js";
import type { Colors } from "./colors.js";
import { cleanTerminalText } from "./terminal-text.js";

const SHOWN_CHARS = 300;

function short(text: string): string {
  const one = cleanTerminalText(text.trim());
  return one.length > SHOWN_CHARS ? `${one.slice(0, SHOWN_CHARS)}…` : one;
}

function textOf(content: Message["content"]): string {
  if (typeof content === "string") return content;
  return content.map(partText).join(" ");
}

/** A loaded or resumed conversation, as the user reads it back: who said what, each cut short, tool calls named. */
export function renderConversation(messages: readonly Message[], c: Colors): string {
  const lines: string[] = [];
  for (const message of messages) {
    if (message.role === "user") lines.push(`${c.bold(c.cyan("›"))} ${short(textOf(message.content))}`);
    else if (message.role === "assistant") {
      if (message.content.trim() !== "") lines.push(short(message.content));
      for (const call of message.toolCalls ?? []) lines.push(c.dim(`  ⚙ ${cleanTerminalText(call.name)}`));
    }
  }
  return lines.join("\n");
}
