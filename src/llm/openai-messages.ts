import type OpenAI from "openai";
import type { ContentPart, Message, ToolChoice, ToolDefinition } from "./types.js";
import { argumentsText } from "./tool-arguments.js";
import { toOpenAIParameters, type OpenAISchemaOptions } from "./schema/openai.js";

type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type WirePart = OpenAI.Chat.Completions.ChatCompletionContentPart;

/** Neutral messages as Chat Completions messages. */
export function toOpenAIMessages(messages: readonly Message[]): WireMessage[] {
  const wire: WireMessage[] = [];
  // Tool messages carry text only; images a tool returned follow the run of tool results as a user message.
  let toolImages: WirePart[] = [];
  const flushToolImages = () => {
    if (toolImages.length === 0) return;
    wire.push({ role: "user", content: [{ type: "text", text: "Images returned by the tools above:" }, ...toolImages] });
    toolImages = [];
  };

  for (const message of messages) {
    if (message.role !== "tool") flushToolImages();
    switch (message.role) {
      case "system":
        wire.push({ role: "system", content: message.content });
        break;
      case "user":
        wire.push({ role: "user", content: typeof message.content === "string" ? message.content : message.content.map(toWirePart) });
        break;
      case "assistant": {
        const calls = message.toolCalls ?? [];
        if (calls.length === 0) {
          wire.push({ role: "assistant", content: message.content });
          break;
        }
        wire.push({
          role: "assistant",
          content: message.content === "" ? null : message.content,
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: argumentsText(call.arguments) },
          })),
        });
        break;
      }
      case "tool": {
        const parts = typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
        const text = parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
        toolImages.push(...parts.filter((p) => p.type === "image").map(toWirePart));
        wire.push({ role: "tool", tool_call_id: message.toolCallId, content: text });
        break;
      }
    }
  }
  flushToolImages();
  return wire;
}

function toWirePart(part: ContentPart): WirePart {
  return part.type === "text"
    ? { type: "text", text: part.text }
    : { type: "image_url", image_url: { url: `data:${part.mimeType};base64,${part.data}` } };
}

export function toOpenAITools(tools: readonly ToolDefinition[], schema: OpenAISchemaOptions = {}): OpenAI.Chat.Completions.ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters: toOpenAIParameters(tool.parameters, schema),
    },
  }));
}

export function toOpenAIToolChoice(choice: ToolChoice): OpenAI.Chat.Completions.ChatCompletionToolChoiceOption {
  return typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
}
