import type { ChatHistoryItem, ChatModelFunctionCall } from "node-llama-cpp";
import { LlmError } from "./errors.js";
import { partText } from "./content-part.js";
import type { ContentPart, Message } from "./types.js";

/**
 * The conversation as node-llama-cpp's chat history, which its chat wrapper renders in the
 * model's own template: each assistant tool call becomes a function call holding its result
 * (from the tool message with its id), and an empty model turn ends it, to be written.
 * `system` (instructions of the adapter's own) comes after the conversation's system messages.
 */
export function toChatHistory(messages: readonly Message[], system?: string): ChatHistoryItem[] {
  const results = new Map<string, string>();
  for (const message of messages) if (message.role === "tool") results.set(message.toolCallId, textOf(message.content, message.isError ? "Error: " : ""));
  const history: ChatHistoryItem[] = [];
  let instructed = system === undefined;
  const instruct = () => {
    if (!instructed) history.push({ type: "system", text: system! });
    instructed = true;
  };
  for (const message of messages) {
    if (message.role !== "system") instruct();
    switch (message.role) {
      case "system":
        history.push({ type: "system", text: message.content });
        break;
      case "user":
        history.push({ type: "user", text: textOf(message.content) });
        break;
      case "assistant": {
        const calls = (message.toolCalls ?? []).map(
          (call): ChatModelFunctionCall => ({ type: "functionCall", name: call.name, params: parsedOrRaw(call.arguments), result: results.get(call.id) ?? "" }),
        );
        history.push({ type: "model", response: [...(message.content ? [message.content] : []), ...calls] });
        break;
      }
      case "tool":
        // Held by its call above.
        break;
    }
  }
  instruct();
  history.push({ type: "model", response: [] });
  return history;
}

function textOf(content: string | ContentPart[], prefix = ""): string {
  if (typeof content === "string") return prefix + content;
  const other = content.find((part) => part.type !== "text");
  if (other) throw new LlmError("unsupported-content", `A local model reads text only; this request holds ${partText(other)}.`);
  return prefix + content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

function parsedOrRaw(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
