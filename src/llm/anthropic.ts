import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from "@anthropic-ai/sdk";
import { LlmError, truncatedError } from "./errors.js";
import { RequestControl } from "./request-control.js";
import { argumentsObject } from "./tool-arguments.js";
import { eventFramingFetch, type AnswerBudget } from "./answer-limit.js";
import { toAnthropicInputSchema } from "./schema/anthropic.js";
import { httpFetch } from "./http-fetch.js";
import { fromSdkError } from "./sdk-errors.js";
import { StreamingModel, systemPrompt, type ModelOptions } from "./streaming-model.js";
import { ToolCallAssembler } from "./tool-call-assembler.js";
import type { ChatRequest, ContentPart, FinishReason, Message, StreamEvent, ToolChoice, ToolDefinition } from "./types.js";
import { effortThinking } from "./reasoning-effort.js";

type Wire = Anthropic.Messages.MessageParam;
type WireBlock = Anthropic.Messages.ContentBlockParam;
type WireRequest = Anthropic.Messages.MessageCreateParamsStreaming;

export interface AnthropicOptions extends ModelOptions {
  apiKey: string;
  /** Without `/v1`; default https://api.anthropic.com. */
  baseURL?: string;
  /** Anthropic requires a limit; default 4096. */
  maxTokens?: number;
}

const DEFAULT_MAX_TOKENS = 4096;
/** The beta that lets a model think between its tool calls. */
export const INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14";
/** Anthropic's documentation: its Claude 4 models think between tool calls with the beta, when thinking has a budget. */
const INTERLEAVING_MODEL = /claude-(?:opus|sonnet|haiku)-4/;
const ANTHROPIC_ERRORS = { APIError, APIConnectionError, APIConnectionTimeoutError };

/** The Messages API adapter (`@anthropic-ai/sdk`), streamed. */
export class AnthropicModel extends StreamingModel<AnthropicOptions> {
  readonly provider = "anthropic";
  private readonly client: Anthropic;

  constructor(options: AnthropicOptions) {
    super(options, options.baseURL ?? "https://api.anthropic.com");
    this.client = new Anthropic({
      // Passing the key (and the URL) keeps the SDK from reading ANTHROPIC_* from the environment.
      apiKey: options.apiKey,
      baseURL: this.baseURL,
      maxRetries: 0,
      timeout: this.timeoutMs + 1000,
      logLevel: "off",
      openTelemetry: false,
      fetch: eventFramingFetch(this.baseURL, httpFetch),
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
    });
  }

  requestBody(request: ChatRequest): WireRequest {
    const { options } = this;
    const system = systemPrompt(request.messages);
    const tools = request.tools ?? [];
    const temperature = request.temperature ?? options.temperature;
    const maxTokens = this.maxTokens(request);
    const thinking = thinkingOf(request, maxTokens);
    return {
      ...(options.extraBody as Partial<WireRequest>),
      ...(request.providerOptions as Partial<WireRequest> | undefined),
      model: options.model,
      max_tokens: maxTokens,
      ...(system ? { system } : {}),
      messages: toAnthropicMessages(request.messages),
      ...(tools.length > 0
        ? {
            tools: this.wireTools(tools, toAnthropicTools),
            tool_choice: toAnthropicToolChoice(request.toolChoice ?? "auto"),
          }
        : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(request.topP !== undefined ? { top_p: request.topP } : {}),
      ...(request.topK !== undefined ? { top_k: request.topK } : {}),
      ...(request.stop !== undefined ? { stop_sequences: request.stop } : {}),
      ...(request.user !== undefined ? { metadata: { user_id: request.user } } : {}),
      ...(thinking ? { thinking: toAnthropicThinking(thinking) } : {}),
      stream: true,
    };
  }

  /**
   * The `anthropic-beta` header of a request: the configured one, with interleaved thinking when
   * the request asks for it, or leaves it to the model and thinks with a budget, tools offered, on a
   * model the documentation names (adaptive thinking interleaves without it).
   */
  betaHeader(request: ChatRequest): string | undefined {
    const configured = Object.entries(this.options.headers ?? {}).find(([name]) => name.toLowerCase() === "anthropic-beta")?.[1];
    const thinking = thinkingOf(request, this.maxTokens(request));
    const interleaved =
      thinking?.enabled === true &&
      (thinking.interleaved ?? (thinking.budgetTokens !== undefined && (request.tools ?? []).length > 0 && INTERLEAVING_MODEL.test(this.options.model)));
    if (!interleaved) return undefined;
    const betas = (configured ?? "").split(",").map((beta) => beta.trim()).filter((beta) => beta !== "");
    return [...new Set([...betas, INTERLEAVED_THINKING_BETA])].join(",");
  }

  private maxTokens(request: ChatRequest): number {
    return request.maxTokens ?? this.options.maxTokens ?? DEFAULT_MAX_TOKENS;
  }

  protected async *attempt(request: ChatRequest, budget: AnswerBudget): AsyncGenerator<StreamEvent> {
    const control = new RequestControl(this.baseURL, this.timeoutMs, request.signal);
    const context = { control, timeoutMs: this.timeoutMs };
    try {
      let stream: AsyncIterable<Anthropic.Messages.RawMessageStreamEvent>;
      try {
        const beta = this.betaHeader(request);
        stream = await this.client.messages.create(this.requestBody(request), { signal: control.signal, ...(beta ? { headers: { "anthropic-beta": beta } } : {}) });
      } catch (err) {
        throw fromSdkError(err, this.baseURL, ANTHROPIC_ERRORS, context);
      }
      const calls = new ToolCallAssembler(budget);
      const toolBlocks = new Set<number>();
      let inputTokens = 0;
      let outputTokens = 0;
      let stopReason: string | null | undefined;
      let stopSequence: string | null = null;
      try {
        for await (const event of stream) {
          if (control.signal.aborted) break;
          control.touch();
          switch (event.type) {
            case "message_start":
              inputTokens = inputTokensOf(event.message.usage) ?? inputTokens;
              outputTokens = event.message.usage.output_tokens;
              break;
            case "content_block_start": {
              const block = event.content_block;
              if (block.type === "tool_use") {
                toolBlocks.add(event.index);
                calls.add(event.index, { id: block.id, name: block.name });
              } else if (block.type === "text" && block.text) {
                yield { type: "text-delta", text: block.text };
              } else if (block.type === "thinking") {
                if (block.thinking) yield { type: "reasoning-delta", text: block.thinking };
                if (block.signature) yield { type: "reasoning-signature", signature: block.signature };
              } else if (block.type === "redacted_thinking") {
                yield { type: "reasoning-redacted", data: block.data };
              }
              break;
            }
            case "content_block_delta": {
              const delta = event.delta;
              if (delta.type === "text_delta") yield { type: "text-delta", text: delta.text };
              else if (delta.type === "thinking_delta") yield { type: "reasoning-delta", text: delta.thinking };
              else if (delta.type === "signature_delta") yield { type: "reasoning-signature", signature: delta.signature };
              else if (delta.type === "input_json_delta") calls.add(event.index, { arguments: delta.partial_json });
              break;
            }
            case "content_block_stop":
              // A tool_use block is whole at its stop; calls come out in block order.
              if (toolBlocks.has(event.index)) for (const call of calls.drain()) yield { type: "tool-call", call };
              break;
            case "message_delta":
              stopReason = event.delta.stop_reason;
              stopSequence = event.delta.stop_sequence;
              outputTokens = event.usage.output_tokens;
              inputTokens = inputTokensOf(event.usage) ?? inputTokens;
              break;
            case "message_stop":
              break;
          }
        }
      } catch (err) {
        throw fromSdkError(err, this.baseURL, ANTHROPIC_ERRORS, context);
      }
      const stopped = control.stopReason();
      if (stopped) throw stopped;
      if (stopReason === undefined) throw truncatedError(this.baseURL);
      yield { type: "usage", usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens } };
      yield stopReason === "stop_sequence" && stopSequence !== null ? { type: "finish", reason: "stop", stopSequence } : { type: "finish", reason: mapStopReason(stopReason) };
    } finally {
      control.dispose();
    }
  }
}

/** The prompt tokens read: the API counts those written to and read from its cache apart from input_tokens. */
function inputTokensOf(usage: {
  input_tokens: number | null;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
}): number | undefined {
  if (usage.input_tokens == null) return undefined;
  return usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
}

function toAnthropicTools(tools: readonly ToolDefinition[]): Anthropic.Messages.Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    input_schema: toAnthropicInputSchema(tool.parameters),
  }));
}

function mapStopReason(reason: string | null): FinishReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool-calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content-filter";
    default:
      return "other";
  }
}

/** The request's thinking, or what its reasoning effort asks (LiteLLM's budgets), the budget kept below max_tokens as the API wants. */
function thinkingOf(request: ChatRequest, maxTokens: number): ChatRequest["thinking"] {
  const thinking = effortThinking(request, { low: 1024, medium: 2048, high: 4096 });
  if (request.thinking || thinking?.budgetTokens === undefined) return thinking;
  // The API's smallest budget is 1024 tokens: below that, the answer gets the tokens.
  return maxTokens > 1024 ? { ...thinking, budgetTokens: Math.min(thinking.budgetTokens, maxTokens - 1) } : { enabled: false };
}

/** Thinking with a budget, adaptive without one (the model decides how much), or off. */
function toAnthropicThinking(thinking: NonNullable<ChatRequest["thinking"]>): Anthropic.Messages.ThinkingConfigParam {
  if (!thinking.enabled) return { type: "disabled" };
  return thinking.budgetTokens !== undefined ? { type: "enabled", budget_tokens: thinking.budgetTokens } : { type: "adaptive" };
}

function toAnthropicToolChoice(choice: ToolChoice): Anthropic.Messages.ToolChoice {
  if (typeof choice === "object") return { type: "tool", name: choice.name };
  return choice === "required" ? { type: "any" } : { type: choice };
}

/**
 * Neutral messages as Messages API turns. Tool results are `tool_result` blocks in a user
 * turn; consecutive turns of one role are merged, since the API wants them alternating.
 */
export function toAnthropicMessages(messages: readonly Message[]): Wire[] {
  const wire: Wire[] = [];
  const push = (role: "user" | "assistant", blocks: WireBlock[]) => {
    if (blocks.length === 0) return;
    const last = wire[wire.length - 1];
    if (last && last.role === role && Array.isArray(last.content)) (last.content as WireBlock[]).push(...blocks);
    else wire.push({ role, content: blocks } as Wire);
  };
  for (const message of messages) {
    switch (message.role) {
      case "system":
        break; // sent as `system`
      case "user":
        push("user", typeof message.content === "string" ? textBlocks(message.content) : message.content.map(toBlock));
        break;
      case "assistant":
        push("assistant", assistantBlocks(message));
        break;
      case "tool": {
        const content = typeof message.content === "string" ? message.content : message.content.map(toBlock);
        push("user", [
          {
            type: "tool_result",
            tool_use_id: message.toolCallId,
            content: content as string | Array<Anthropic.Messages.TextBlockParam | Anthropic.Messages.ImageBlockParam>,
            ...(message.isError ? { is_error: true } : {}),
          },
        ]);
        break;
      }
    }
  }
  return wire;
}

/**
 * An assistant message's blocks. With its blocks kept, signed and redacted thinking go back as
 * they came, in place (the API refuses a tool-using reply whose thinking was dropped, altered
 * or moved); thinking without a signature is not sent, as the API would refuse it.
 */
function assistantBlocks(message: Extract<Message, { role: "assistant" }>): WireBlock[] {
  const calls = (message.toolCalls ?? []).map((call): WireBlock => ({ type: "tool_use", id: call.id, name: call.name, input: argumentsObject(call.arguments) }));
  if (!message.blocks) return [...textBlocks(message.content), ...calls];
  let next = 0;
  const wire = message.blocks.flatMap((block): WireBlock[] => {
    switch (block.type) {
      case "reasoning":
        return block.signature === "" ? [] : [{ type: "thinking", thinking: block.text, signature: block.signature }];
      case "redacted-reasoning":
        return [{ type: "redacted_thinking", data: block.data }];
      case "text":
        return textBlocks(block.text);
      case "tool-call":
        return calls.slice(next, ++next);
    }
  });
  return [...wire, ...calls.slice(next)];
}

/** The API refuses empty text blocks. */
function textBlocks(text: string): WireBlock[] {
  return text === "" ? [] : [{ type: "text", text }];
}

function toBlock(part: ContentPart): Anthropic.Messages.TextBlockParam | Anthropic.Messages.ImageBlockParam | Anthropic.Messages.DocumentBlockParam {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
      return { type: "image", source: { type: "base64", media_type: part.mimeType as Anthropic.Messages.Base64ImageSource["media_type"], data: part.data } };
    case "image-url":
      return { type: "image", source: { type: "url", url: part.url } };
    case "document":
      return { type: "document", source: { type: "base64", media_type: "application/pdf", data: part.data }, ...(part.name ? { title: part.name } : {}) };
    case "audio":
      throw new LlmError("unsupported-content", `anthropic cannot take audio input (${part.mimeType}); use a model of a provider that can (gemini, or an OpenAI-compatible server with input_audio)`);
  }
}
