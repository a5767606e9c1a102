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
  /** An image at an http(s) URL, which the model's server fetches; providers that cannot refuse it with an error naming them. */
  | { type: "image-url"; url: string }
  /** base64 data; providers that cannot hear refuse it with an error naming them. */
  | { type: "audio"; data: string; mimeType: string }
  /** A document (a PDF), base64 data; `name` is its file name. Providers that cannot read one refuse it with an error naming it. */
  | { type: "document"; data: string; mimeType: string; name?: string };

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

/**
 * One block of an assistant reply, in the order the model made them. Kept with a reply that
 * holds signed or redacted reasoning (Anthropic's `thinking` and `redacted_thinking`), which
 * the provider wants back unchanged and in place, interleaved thinking between the calls
 * included. A `tool-call` block stands for the next of the message's `toolCalls`.
 */
export type ReplyBlock =
  | { type: "text"; text: string }
  /** `signature`: the provider's signature of the text; empty when it gave none. */
  | { type: "reasoning"; text: string; signature: string }
  /** Reasoning the provider encrypted: opaque data, given back as it came. */
  | { type: "redacted-reasoning"; data: string }
  | { type: "tool-call" };

export type Message =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ContentPart[] }
  | {
      role: "assistant";
      content: string;
      toolCalls?: ToolCall[];
      reasoning?: string;
      /**
       * The reply block by block, when it holds signed or redacted reasoning (see ReplyBlock);
       * `content`, `reasoning` and `toolCalls` hold the same in sum.
       */
      blocks?: ReplyBlock[];
    }
  | { role: "tool"; toolCallId: string; name: string; content: string | ContentPart[]; isError?: boolean };

export type ToolChoice = "auto" | "required" | "none" | { name: string };

/**
 * The form the final answer must take: a JSON object (matching `schema` when given), or
 * provider request fields that constrain it (vLLM's `guided_regex`, `structured_outputs`, ...),
 * sent as they are by the adapters that take them.
 */
export type ResponseFormat =
  | {
      type: "json";
      schema?: JsonSchema;
      /** The schema's name, for APIs that want one. */
      name?: string;
      description?: string;
      strict?: boolean;
    }
  | { type: "provider"; fields: Readonly<Record<string, unknown>> };

/**
 * Generation settings a caller may set per request beyond temperature and length. Each
 * adapter sends those its API has, under its own names, and leaves out the rest.
 */
export interface GenerationSettings {
  topP?: number;
  topK?: number;
  stop?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  /** Token id (as a string) to bias, -100 to 100. */
  logitBias?: Record<string, number>;
  logprobs?: boolean;
  topLogprobs?: number;
  reasoningEffort?: string;
  /**
   * Whether a model that can think before answering should, and in how many tokens at most
   * (no budget: as much as the model decides). The OpenAI-compatible adapter sends it as
   * vLLM's chat templates and sampler read it, Anthropic's as `thinking`, Gemini's as
   * `thinkingConfig`.
   */
  thinking?: {
    enabled: boolean;
    budgetTokens?: number;
    /**
     * Whether the model may think between its tool calls too (Anthropic's interleaved thinking,
     * a beta its Claude 4 models take). Undefined: as the provider's documentation says for the model.
     */
    interleaved?: boolean;
  };
  /** Whether one reply may call several tools; sent only with tools. */
  parallelToolCalls?: boolean;
  /** The end user, for the provider's abuse monitoring. */
  user?: string;
  /**
   * Request fields the neutral request has no name for, sent as they are in the provider's
   * request body (vLLM's `chat_template_kwargs`, `min_p`, `structured_outputs`, ...): merged
   * over ModelOptions.extraBody; the fields the adapter sets itself win.
   */
  providerOptions?: Readonly<Record<string, unknown>>;
}

export interface ChatRequest extends GenerationSettings {
  messages: Message[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  temperature?: number;
  maxTokens?: number;
  responseFormat?: ResponseFormat;
  /**
   * Hold tool calls to their schemas (`strict` on each tool, which vLLM enforces with a
   * grammar). Undefined: the adapter's default. Adapters without such a switch ignore it.
   */
  strictTools?: boolean;
  signal?: AbortSignal;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** One token's log probability as OpenAI-compatible servers give it (`top_logprobs` when asked for). */
export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes?: number[] | null;
  top_logprobs?: Array<{ token: string; logprob: number; bytes?: number[] | null }>;
}

export type FinishReason = "stop" | "tool-calls" | "length" | "content-filter" | "other";

export type StreamEvent =
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  /** The provider's signature of the reasoning block just streamed, which ends that block (see ReplyBlock). */
  | { type: "reasoning-signature"; signature: string }
  /** A block of reasoning the provider encrypted (Anthropic's `redacted_thinking`), opaque, to be given back as it came. */
  | { type: "reasoning-redacted"; data: string }
  /** Log probabilities of the tokens just streamed, when the request asked for `logprobs`. */
  | { type: "logprobs"; content: TokenLogprob[] }
  /** A complete tool call, emitted once its arguments are fully received. */
  | { type: "tool-call"; call: ToolCall }
  | { type: "usage"; usage: Usage }
  /**
   * The request failed before any output and is sent again after `delayMs`: `attempt` of
   * `maxRetries`, `reason` says why ("HTTP 503"). Nothing of the failed attempt was yielded.
   */
  | { type: "retry"; attempt: number; maxRetries: number; reason: string; delayMs: number }
  /** `stopSequence`: which of the request's stop sequences ended the reply, when the provider says. */
  | { type: "finish"; reason: FinishReason; stopSequence?: string };

/** What every provider adapter implements: one streamed chat completion per call. */
export interface ChatModel {
  readonly provider: string;
  readonly modelId: string;
  /** Where requests go, for display. */
  readonly baseURL?: string;
  stream(request: ChatRequest): AsyncIterable<StreamEvent>;
  /**
   * Whether tools go out `strict`: true by default, false only when a request asks,
   * "refused" once the server refused it (then never). Undefined: the adapter has no such switch.
   */
  readonly strictTools?: boolean | "refused";
  /**
   * The prompt tokens the request would take, counted by the model's own server with its
   * tokenizer and chat template; undefined when the server cannot count.
   */
  countTokens?(request: ChatRequest): Promise<number | undefined>;
}
