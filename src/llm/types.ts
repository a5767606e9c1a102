/**
 * Provider-neutral message, tool and stream types. Every provider adapter maps these to
 * and from its own wire format in one place; nothing outside src/llm sees a provider's shapes.
 */

export type JsonSchema = Record<string, unknown>;

/** A tool as offered to a model: the exposed (provider-legal) name and the MCP input schema. */
export interface ToolDefinition {
  name: string;
  description?: string;
  parameters: JsonSchema;
}

export type ContentPart =
  | { type: "text"; text: string }
  /** base64 data */
  | { type: "image"; data: string; mimeType: string }
  /** base64 data; providers that cannot hear refuse it with an error naming them. */
  | { type: "audio"; data: string; mimeType: string };

/** A tool call as the model made it; `arguments` is the raw JSON text, possibly invalid. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
  /**
   * An opaque token some providers attach to a call and require back with it in later
   * requests (Gemini's thought signatures). Keep it with the call in the conversation.
   */
  signature?: string;
}

export type Message =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ContentPart[] }
  | { role: "assistant"; content: string; toolCalls?: ToolCall[]; reasoning?: string }
  | { role: "tool"; toolCallId: string; name: string; content: string | ContentPart[]; isError?: boolean };

export type ToolChoice = "auto" | "required" | "none" | { name: string };

export interface ChatRequest {
  messages: Message[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export type FinishReason = "stop" | "tool-calls" | "length" | "content-filter" | "other";

export type StreamEvent =
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  /** A complete tool call, emitted once its arguments are fully received. */
  | { type: "tool-call"; call: ToolCall }
  | { type: "usage"; usage: Usage }
  /**
   * The request failed before any output and is sent again after `delayMs`: `attempt` of
   * `maxRetries`, `reason` says why ("HTTP 503"). Nothing of the failed attempt was yielded.
   */
  | { type: "retry"; attempt: number; maxRetries: number; reason: string; delayMs: number }
  | { type: "finish"; reason: FinishReason };

/** What every provider adapter implements: one streamed chat completion per call. */
export interface ChatModel {
  readonly provider: string;
  readonly modelId: string;
  /** Where requests go, for display. */
  readonly baseURL?: string;
  stream(request: ChatRequest): AsyncIterable<StreamEvent>;
}
