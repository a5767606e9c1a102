import type OpenAI from "openai";
import { partText } from "./content-part.js";
import { LlmError } from "./errors.js";
import type { ChatRequest, ContentPart, Message, ResponseFormat, ToolChoice, ToolDefinition } from "./types.js";
import { argumentsText } from "./tool-arguments.js";
import { toOpenAIParameters, type OpenAISchemaOptions } from "./schema/openai.js";

type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type WirePart = OpenAI.Chat.Completions.ChatCompletionContentPart;

/** Neutral messages as Chat Completions messages; `provider` names the server in an error about content it cannot take. */
export function toOpenAIMessages(messages: readonly Message[], provider = "openai-compatible"): WireMessage[] {
  const wire: WireMessage[] = [];
  const toWirePart = (part: ContentPart): WirePart => wirePart(part, provider);
  // Tool messages carry text only; images (and audio) a tool returned follow the run of tool results as a user message.
  let toolImages: WirePart[] = [];
  const flushToolImages = () => {
    if (toolImages.length === 0) return;
    wire.push({ role: "user", content: [{ type: "text", text: "Media returned by the tools above:" }, ...toolImages] });
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
        toolImages.push(...parts.filter((p) => p.type !== "text").map(toWirePart));
        wire.push({ role: "tool", tool_call_id: message.toolCallId, content: text });
        break;
      }
    }
  }
  flushToolImages();
  return wire;
}

/** Servers whose chat API has no `file` content part: vLLM parses none, Ollama's OpenAI API takes text and images only. */
const NO_FILE_PARTS = new Set(["vllm", "ollama"]);

/** The audio formats Chat Completions' `input_audio` takes, by MIME type. */
const AUDIO_FORMATS: Record<string, "wav" | "mp3"> = {
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/wave": "wav",
  "audio/vnd.wave": "wav",
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
};

function wirePart(part: ContentPart, provider: string): WirePart {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
      return { type: "image_url", image_url: { url: `data:${part.mimeType};base64,${part.data}` } };
    case "image-url":
      return { type: "image_url", image_url: { url: part.url } };
    case "audio": {
      const format = AUDIO_FORMATS[part.mimeType.toLowerCase().split(";")[0]?.trim() ?? ""];
      if (!format) throw new LlmError("unsupported-content", `${provider} takes audio as wav or mp3 only (input_audio), not ${part.mimeType}`);
      return { type: "input_audio", input_audio: { data: part.data, format } };
    }
    case "document":
      // Another server's support is unknown: the part goes, and its refusal comes back as its error.
      if (NO_FILE_PARTS.has(provider)) throw new LlmError("unsupported-content", `${provider} cannot read ${partText(part)}: its chat API takes no file parts; send the document's text, or its pages as images`);
      return { type: "file", file: { file_data: `data:${part.mimeType};base64,${part.data}`, ...(part.name ? { filename: part.name } : {}) } };
  }
}

export function toOpenAITools(tools: readonly ToolDefinition[], schema: OpenAISchemaOptions = {}): OpenAI.Chat.Completions.ChatCompletionFunctionTool[] {
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

/**
 * The neutral generation settings under Chat Completions' names. `top_k` is not OpenAI's, but
 * vLLM, SGLang, llama.cpp and Ollama read it, and OpenAI ignores what it does not know.
 */
export function openAIGenerationFields(request: ChatRequest): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (request.topP !== undefined) fields.top_p = request.topP;
  if (request.topK !== undefined) fields.top_k = request.topK;
  if (request.stop !== undefined) fields.stop = request.stop;
  if (request.seed !== undefined) fields.seed = request.seed;
  if (request.presencePenalty !== undefined) fields.presence_penalty = request.presencePenalty;
  if (request.frequencyPenalty !== undefined) fields.frequency_penalty = request.frequencyPenalty;
  if (request.logitBias !== undefined) fields.logit_bias = request.logitBias;
  if (request.logprobs !== undefined) fields.logprobs = request.logprobs;
  if (request.topLogprobs !== undefined) fields.top_logprobs = request.topLogprobs;
  if (request.reasoningEffort !== undefined) fields.reasoning_effort = request.reasoningEffort;
  if (request.user !== undefined) fields.user = request.user;
  const format = request.responseFormat;
  if (format?.type === "json") fields.response_format = toOpenAIResponseFormat(format);
  else if (format?.type === "provider") Object.assign(fields, format.fields);
  return fields;
}

/**
 * A thinking switch as vLLM's models read it: in `chat_template_kwargs`, Qwen3's template reads
 * `enable_thinking` and DeepSeek-V3.1's and Granite's read `thinking` (a template ignores the
 * other's); the budget is vLLM's `thinking_token_budget` (servers that lack it ignore it).
 * `kwargs`: the template arguments the request already carries, kept.
 */
export function thinkingFields(thinking: NonNullable<ChatRequest["thinking"]>, kwargs: unknown): Record<string, unknown> {
  const given = typeof kwargs === "object" && kwargs !== null && !Array.isArray(kwargs) ? kwargs : {};
  return {
    chat_template_kwargs: { ...given, enable_thinking: thinking.enabled, thinking: thinking.enabled },
    ...(thinking.enabled && thinking.budgetTokens !== undefined ? { thinking_token_budget: thinking.budgetTokens } : {}),
  };
}

export function toOpenAIResponseFormat(format: Extract<ResponseFormat, { type: "json" }>): Record<string, unknown> {
  if (!format.schema) return { type: "json_object" };
  return {
    type: "json_schema",
    json_schema: {
      name: format.name ?? "response",
      ...(format.description !== undefined ? { description: format.description } : {}),
      schema: format.schema,
      ...(format.strict !== undefined ? { strict: format.strict } : {}),
    },
  };
}
