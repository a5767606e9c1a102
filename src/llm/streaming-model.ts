import { AnswerBudget, DEFAULT_MAX_ANSWER_CHARS } from "./answer-limit.js";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "./request-control.js";
import { retryBeforeOutput, type RetryOptions } from "./retry.js";
import type { ChatModel, ChatRequest, Message, StreamEvent, ToolDefinition } from "./types.js";

/** The settings every provider adapter takes. */
export interface ModelOptions {
  model: string;
  temperature?: number;
  maxTokens?: number;
  /**
   * Extra request fields: sent as they are to OpenAI-compatible servers (vLLM's
   * chat_template_kwargs, top_k, ...) and Anthropic (`thinking: {...}`), merged into
   * Gemini's generation config (`thinkingConfig: {includeThoughts: true}`).
   */
  extraBody?: Record<string, unknown>;
  /** How long the server may stay silent, before its answer starts or in the middle of it. */
  requestTimeoutMs?: number;
  /** The most characters one answer may hold (text, reasoning, tool arguments); default 16 Mi. */
  maxAnswerChars?: number;
  retry?: RetryOptions;
  headers?: Record<string, string>;
}

/**
 * What the adapters share: each streamed request is one `attempt`, retried (before any
 * output) under the same idle timeout and retry settings.
 */
export abstract class StreamingModel<Options extends ModelOptions> implements ChatModel {
  abstract readonly provider: string;
  readonly modelId: string;
  protected readonly timeoutMs: number;
  /**
   * The agent offers the same tool list (one array) on every request until a server's list
   * changes; converting it once saves about 2 µs per tool per request.
   */
  private readonly convertedTools = new WeakMap<readonly ToolDefinition[], unknown>();

  constructor(
    protected readonly options: Options,
    /** The server's address as requests use it: for requests, error messages and display. */
    readonly baseURL: string,
  ) {
    this.modelId = options.model;
    this.timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  stream(request: ChatRequest): AsyncIterable<StreamEvent> {
    return retryBeforeOutput(
      () => {
        const budget = new AnswerBudget(this.baseURL, this.options.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS);
        return { events: this.attempt(request, budget), check: (event: StreamEvent) => budget.count(event) };
      },
      this.options.retry,
      this.baseURL,
      request.signal,
    );
  }

  /** The tools in the provider's wire form, converted once per tool list (by array identity). */
  protected wireTools<T>(tools: readonly ToolDefinition[], convert: (tools: readonly ToolDefinition[]) => T): T {
    if (this.convertedTools.has(tools)) return this.convertedTools.get(tools) as T;
    const wire = convert(tools);
    this.convertedTools.set(tools, wire);
    return wire;
  }

  /** One request; tool-call fragments count against `budget` as they arrive (text is counted for it). */
  protected abstract attempt(request: ChatRequest, budget: AnswerBudget): AsyncGenerator<StreamEvent>;
}

/** The system messages as the one system prompt of APIs that take it apart from the turns. */
export function systemPrompt(messages: readonly Message[]): string {
  return messages.flatMap((m) => (m.role === "system" ? [m.content] : [])).join("\n\n");
}
