import { randomUUID } from "node:crypto";
import {
  ApiError,
  FunctionCallingConfigMode,
  GoogleGenAI,
  type Content,
  type GenerateContentConfig,
  type GenerateContentResponse,
  type Part,
  type ThinkingConfig,
  type Tool,
  type ToolConfig,
} from "@google/genai";
import { httpError, LlmError, serverMessageOf, streamError, truncatedError } from "./errors.js";
import { eventFramingFetch } from "./answer-limit.js";
import { httpFetch } from "./http-fetch.js";
import { RequestControl } from "./request-control.js";
import { argumentsObject } from "./tool-arguments.js";
import { toGeminiParameters } from "./schema/gemini.js";
import { unreadable } from "./sdk-errors.js";
import { StreamingModel, systemPrompt, type ModelOptions } from "./streaming-model.js";
import type { ChatRequest, ContentPart, FinishReason, Message, StreamEvent, ToolCall, ToolChoice, ToolDefinition, Usage } from "./types.js";
import { effortThinking } from "./reasoning-effort.js";

export interface GeminiOptions extends ModelOptions {
  apiKey: string;
  /** Default https://generativelanguage.googleapis.com (the SDK adds the API version). */
  baseURL?: string;
}

/**
 * Gemini gives some function calls no id. Ids made up here carry this prefix so they are
 * not sent back as if the API had issued them.
 */
const LOCAL_ID_PREFIX = "toolbridge-call-";

/** The Gemini API adapter (`@google/genai`), streamed. */
export class GeminiModel extends StreamingModel<GeminiOptions> {
  readonly provider = "gemini";
  private readonly client: GoogleGenAI;

  constructor(options: GeminiOptions) {
    super(options, options.baseURL ?? "https://generativelanguage.googleapis.com");
    this.client = new GoogleGenAI({
      // Given explicitly, so the SDK reads no GOOGLE_* variables to pick a backend or key.
      apiKey: options.apiKey,
      vertexai: false,
      httpOptions: {
        // The SDK's own reader holds an event without bound and rescans it on every chunk: it is handed whole events, each bounded.
        fetch: eventFramingFetch(this.baseURL, httpFetch),
        ...(options.baseURL ? { baseUrl: options.baseURL } : {}),
        ...(options.headers ? { headers: options.headers } : {}),
      },
    });
  }

  requestConfig(request: ChatRequest): GenerateContentConfig {
    const { options } = this;
    const system = systemPrompt(request.messages);
    const tools = request.tools ?? [];
    const temperature = request.temperature ?? options.temperature;
    const maxTokens = request.maxTokens ?? options.maxTokens;
    // Google's own OpenAI-compatible endpoint gives the efforts these budgets.
    const thinking = effortThinking(request, { low: 1024, medium: 8192, high: 24576 });
    return {
      ...(options.extraBody as GenerateContentConfig | undefined),
      ...(request.providerOptions as GenerateContentConfig | undefined),
      ...(system ? { systemInstruction: system } : {}),
      ...(tools.length > 0
        ? {
            tools: this.wireTools(tools, toGeminiTools),
            toolConfig: toGeminiToolConfig(request.toolChoice ?? "auto"),
          }
        : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(maxTokens !== undefined ? { maxOutputTokens: maxTokens } : {}),
      ...(request.topP !== undefined ? { topP: request.topP } : {}),
      ...(request.topK !== undefined ? { topK: request.topK } : {}),
      ...(request.stop !== undefined ? { stopSequences: request.stop } : {}),
      ...(request.seed !== undefined ? { seed: request.seed } : {}),
      ...(request.presencePenalty !== undefined ? { presencePenalty: request.presencePenalty } : {}),
      ...(request.frequencyPenalty !== undefined ? { frequencyPenalty: request.frequencyPenalty } : {}),
      ...(thinking ? { thinkingConfig: toGeminiThinking(thinking) } : {}),
      ...(request.responseFormat?.type === "json" ? { responseMimeType: "application/json", ...(request.responseFormat.schema ? { responseJsonSchema: request.responseFormat.schema } : {}) } : {}),
    };
  }

  protected async *attempt(request: ChatRequest): AsyncGenerator<StreamEvent> {
    const control = new RequestControl(this.baseURL, this.timeoutMs, request.signal);
    try {
      let stream: AsyncGenerator<GenerateContentResponse>;
      try {
        stream = await this.client.models.generateContentStream({
          model: this.options.model,
          contents: toGeminiContents(request.messages),
          config: { ...this.requestConfig(request), abortSignal: control.signal },
        });
      } catch (err) {
        throw this.toLlmError(err, control);
      }
      let finishReason: string | undefined;
      let blocked = false;
      let sawCalls = false;
      let usage: Usage | undefined;
      try {
        for await (const chunk of stream) {
          if (control.signal.aborted) break;
          control.touch();
          if (chunk.usageMetadata) {
            const meta = chunk.usageMetadata;
            const input = meta.promptTokenCount ?? 0;
            const output = (meta.candidatesTokenCount ?? 0) + (meta.thoughtsTokenCount ?? 0);
            usage = { inputTokens: input, outputTokens: output, totalTokens: meta.totalTokenCount ?? input + output };
          }
          if (chunk.promptFeedback?.blockReason) blocked = true;
          const candidate = chunk.candidates?.[0];
          for (const part of candidate?.content?.parts ?? []) {
            if (part.functionCall) {
              sawCalls = true;
              yield { type: "tool-call", call: fromFunctionCallPart(part) };
            } else if (typeof part.text === "string" && part.text !== "") {
              yield { type: part.thought ? "reasoning-delta" : "text-delta", text: part.text };
            }
          }
          if (candidate?.finishReason) finishReason = candidate.finishReason;
        }
      } catch (err) {
        throw this.toLlmError(err, control);
      }
      const stopped = control.stopReason();
      if (stopped) throw stopped;
      if (finishReason === undefined && !blocked) throw truncatedError(this.baseURL);
      if (usage) yield { type: "usage", usage };
      yield { type: "finish", reason: blocked ? "content-filter" : mapFinishReason(finishReason, sawCalls) };
    } finally {
      control.dispose();
    }
  }

  private toLlmError(err: unknown, control: RequestControl): LlmError {
    const stopped = control.stopReason();
    if (stopped) return stopped;
    if (err instanceof LlmError) return err;
    if (err instanceof ApiError) {
      // The SDK puts the whole error body, as JSON text, in the message.
      let body: unknown = err.message;
      try {
        body = JSON.parse(err.message);
      } catch {
        // plain text stays as it is
      }
      return httpError(err.status, serverMessageOf(body), this.baseURL, { cause: err });
    }
    // A `data: {"error": ...}` event mid-stream comes as a plain Error carrying the body.
    if (err instanceof Error && /"error"\s*:/.test(err.message)) {
      const json = err.message.slice(err.message.indexOf("{"));
      try {
        return streamError(this.baseURL, serverMessageOf(JSON.parse(json)), err);
      } catch {
        // not JSON after all: fall through
      }
    }
    return unreadable(err, this.baseURL);
  }
}

function fromFunctionCallPart(part: Part): ToolCall {
  const fc = part.functionCall ?? {};
  const call: ToolCall = {
    id: fc.id ?? `${LOCAL_ID_PREFIX}${randomUUID()}`,
    name: fc.name ?? "",
    arguments: JSON.stringify(fc.args ?? {}),
  };
  if (part.thoughtSignature) call.signature = part.thoughtSignature;
  return call;
}

function mapFinishReason(reason: string | undefined, sawCalls: boolean): FinishReason {
  switch (reason) {
    case "STOP":
      return sawCalls ? "tool-calls" : "stop";
    case "MAX_TOKENS":
      return "length";
    case "SAFETY":
    case "RECITATION":
    case "BLOCKLIST":
    case "PROHIBITED_CONTENT":
    case "SPII":
    case "IMAGE_SAFETY":
      return "content-filter";
    default:
      return sawCalls ? "tool-calls" : "other";
  }
}

function toGeminiTools(tools: readonly ToolDefinition[]): Tool[] {
  return [
    {
      functionDeclarations: tools.map((tool) => ({
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        ...toGeminiParameters(tool.parameters),
      })),
    },
  ];
}

/** Thoughts shown, within the budget (-1: as much as the model decides); a budget of 0 turns thinking off. */
function toGeminiThinking(thinking: NonNullable<ChatRequest["thinking"]>): ThinkingConfig {
  return thinking.enabled ? { includeThoughts: true, thinkingBudget: thinking.budgetTokens ?? -1 } : { thinkingBudget: 0 };
}

function toGeminiToolConfig(choice: ToolChoice): ToolConfig {
  if (typeof choice === "object") {
    return { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: [choice.name] } };
  }
  const mode = { auto: FunctionCallingConfigMode.AUTO, required: FunctionCallingConfigMode.ANY, none: FunctionCallingConfigMode.NONE }[choice];
  return { functionCallingConfig: { mode } };
}

/**
 * Neutral messages as Gemini contents: the assistant is "model", tool results are
 * `functionResponse` parts in a user turn (`{output}` or `{error}`, as Google's docs
 * name them), consecutive turns of one role are merged.
 */
export function toGeminiContents(messages: readonly Message[]): Content[] {
  const contents: Content[] = [];
  const push = (role: "user" | "model", parts: Part[]) => {
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    if (last && last.role === role) (last.parts ??= []).push(...parts);
    else contents.push({ role, parts });
  };
  for (const message of messages) {
    switch (message.role) {
      case "system":
        break; // sent as systemInstruction
      case "user":
        push("user", typeof message.content === "string" ? textParts(message.content) : message.content.map(toPart));
        break;
      case "assistant":
        push("model", [
          ...textParts(message.content),
          ...(message.toolCalls ?? []).map((call): Part => {
            const part: Part = {
              functionCall: {
                name: call.name,
                args: argumentsObject(call.arguments),
                ...(call.id.startsWith(LOCAL_ID_PREFIX) ? {} : { id: call.id }),
              },
            };
            if (call.signature) part.thoughtSignature = call.signature;
            return part;
          }),
        ]);
        break;
      case "tool": {
        const parts = typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
        const text = parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
        push("user", [
          {
            functionResponse: {
              name: message.name,
              response: message.isError ? { error: text } : { output: text },
              ...(message.toolCallId.startsWith(LOCAL_ID_PREFIX) ? {} : { id: message.toolCallId }),
            },
          },
          ...parts.filter((p) => p.type !== "text").map(toPart),
        ]);
        break;
      }
    }
  }
  return contents;
}

function textParts(text: string): Part[] {
  return text === "" ? [] : [{ text }];
}

/** Images, audio and documents (PDF) go inline, with their MIME type; an image at a URL Gemini would not fetch is refused. */
function toPart(part: ContentPart): Part {
  if (part.type === "image-url") throw new LlmError("unsupported-content", `gemini takes images inline only, not by URL (${part.url}); send the image's data`);
  return part.type === "text" ? { text: part.text } : { inlineData: { mimeType: part.mimeType, data: part.data } };
}
