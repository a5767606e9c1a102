import { LlmError } from "./errors.js";
import { frameEventStream } from "./sse-framing.js";
import type { StreamEvent } from "./types.js";

/**
 * The most characters one answer may hold (text, reasoning and tool-call arguments together):
 * 16 Mi characters is about four million tokens, past every context window, and still small
 * enough to hold in memory. A server that streams without end is cut off here.
 */
export const DEFAULT_MAX_ANSWER_CHARS = 16 * 1024 * 1024;

/**
 * One event of a model's stream: a real one carries a few tokens, and one past twice the
 * default answer limit could only fail that limit after costing its size several times over.
 */
export const MAX_EVENT_BYTES = 32 * 1024 * 1024;

export function answerTooLong(url: string, maxChars: number): LlmError {
  return new LlmError(
    "too-large",
    `The model server at ${url} sent an answer of more than ${maxChars} characters (llm.maxAnswerChars); the rest was not read.`,
    { url },
  );
}

/** The same budget of characters across an answer's events and its tool calls' fragments. */
export class AnswerBudget {
  private used = 0;

  constructor(
    private readonly url: string,
    readonly maxChars: number,
  ) {}

  /** Counts `chars` more; throws once the answer passes the limit. */
  spend(chars: number): void {
    this.used += chars;
    if (this.used > this.maxChars) throw answerTooLong(this.url, this.maxChars);
  }

  /** Counts an answer's event: its text, if it has any. */
  count(event: StreamEvent): void {
    if (event.type === "text-delta" || event.type === "reasoning-delta") this.spend(event.text.length);
  }
}

/**
 * A fetch for SDKs that read the event stream themselves (`@anthropic-ai/sdk`, `@google/genai`):
 * their SSE readers copy and rescan everything they hold on every network chunk, quadratic in
 * the size of one event; handed whole events they read in linear time. One event is bounded
 * by MAX_EVENT_BYTES.
 */
export function eventFramingFetch(url: string, base: typeof fetch): typeof fetch {
  return async (input, init) =>
    frameEventStream(await base(input, init), { maxEventBytes: MAX_EVENT_BYTES, onOversized: (bytes) => eventTooLarge(url, bytes) });
}

export function eventTooLarge(url: string, bytes: number): LlmError {
  return new LlmError("too-large", `The model server at ${url} sent one event of more than ${bytes} bytes; the rest was not read.`, { url });
}
