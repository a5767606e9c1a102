import type { CallToolResult, Progress } from "../mcp/types.js";
import type { ContentPart, FinishReason, Message, TokenLogprob, ToolCall, Usage } from "../llm/types.js";

/**
 * What the agent reports while it works. Every consumer (the CLI, tests, a library user)
 * switches on `type`; the agent itself never prints.
 */
export type AgentEvent =
  /** A request to the model is about to be sent. `withTools` is false for the last, tool-less request at a limit. */
  | { type: "model-request"; iteration: number; toolCount: number; withTools: boolean }
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  /** The provider's signature of the reasoning just streamed (Anthropic's), for APIs that hand it to their clients. */
  | { type: "reasoning-signature"; signature: string }
  /** Reasoning the provider encrypted (Anthropic's redacted thinking), opaque, for APIs that hand it to their clients. */
  | { type: "reasoning-redacted"; data: string }
  /** A tool call of the model's reply, in its place among the reply's text and reasoning, before it is run or handed to the client. */
  | { type: "tool-call-written"; call: ToolCall }
  /** Log probabilities of the model's tokens, when asked for (AgentOptions.generation.logprobs). */
  | { type: "logprobs"; content: TokenLogprob[] }
  /** `arguments` is the parsed object when the model's text was valid JSON, else the raw text. */
  | { type: "tool-call-started"; id: string; name: string; arguments: Record<string, unknown> | string }
  | { type: "tool-progress"; id: string; name: string; progress: Progress }
  /** `result` is what the tool returned, when it ran (a front end may show it whole). */
  | { type: "tool-call-finished"; id: string; name: string; summary: string; isError: boolean; durationMs: number; outcome: ToolOutcome; result?: CallToolResult }
  | { type: "usage"; usage: Usage }
  | { type: "notice"; code: NoticeCode; message: string }
  | { type: "error"; error: TurnError }
  /** Always the last event of a turn, whatever happened. */
  | { type: "turn-end"; turn: TurnResult };

export type AgentEventType = AgentEvent["type"];

/** "prompt-mode": switched to prompt-based tool calling; "retry": a failed model request is being sent again. */
export type NoticeCode = "prompt-mode" | "retry" | "hook";

/** How one tool call ended; everything except "ok" went back to the model as an error it can act on. */
export type ToolOutcome =
  | "ok"
  /** The tool ran and reported isError. */
  | "tool-error"
  /** The call failed on the way (server gone, timeout). */
  | "call-failed"
  | "unknown-tool"
  | "invalid-json"
  | "invalid-arguments"
  /** The person asked denied the call; it was not run. */
  | "denied"
  /** The approval policy did not allow the call and nobody could be asked; it was not run. */
  | "not-approved"
  /** The same call was repeated too often; it was not run. */
  | "repeated"
  /** The turn had run as many calls as it may (maxToolCalls); it was not run. */
  | "over-limit"
  | "cancelled";

export interface ToolCallRecord {
  id: string;
  name: string;
  /** The raw argument text the model wrote. */
  rawArguments: string;
  /** The parsed arguments, when they parsed. */
  arguments?: Record<string, unknown>;
  outcome: ToolOutcome;
  isError: boolean;
  /** What the tool returned, in full; absent when the tool was not reached. */
  result?: CallToolResult;
  /** The content of the tool message, in full (the model sees it capped at maxToolResultChars). */
  content: string | ContentPart[];
  durationMs: number;
}

export type StopReason =
  /** The model answered in text. */
  | "answer"
  | "max-iterations"
  /** The turn ran as many tool calls as it may (`maxToolCalls`), and the model then answered without tools. */
  | "max-tool-calls"
  /** The same tool call came back again and again. */
  | "repeated-call"
  /** The model called tools the caller runs (AgentOptions.clientTools): see TurnResult.clientToolCalls. */
  | "client-tools"
  | "aborted"
  | "error";

export interface TurnError {
  /** LlmError codes, or "internal" for anything else. */
  code: string;
  message: string;
}

export interface TurnResult {
  input: string;
  /** The final answer. */
  text: string;
  reasoning: string;
  status: "completed" | "aborted" | "failed";
  stopReason: StopReason;
  /** True when maxIterations or the repeat guard cut the turn short. */
  limitReached: boolean;
  /** Number of model requests made. */
  iterations: number;
  toolCalls: ToolCallRecord[];
  usage: Usage;
  durationMs: number;
  /** The messages this turn added to the conversation. */
  messages: Message[];
  error?: TurnError;
  /** With stopReason "client-tools": the calls for the caller to run; their results continue the conversation. */
  clientToolCalls?: ToolCall[];
  /** How the model ended its last reply ("length": cut at maxTokens). */
  finishReason?: FinishReason;
  /** The stop sequence that ended the last reply, when the provider says which. */
  stopSequence?: string;
}
