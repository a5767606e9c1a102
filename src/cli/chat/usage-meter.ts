import type { AgentEvent } from "../../agent/events.js";
import type { ListedModel } from "../../llm/discovery.js";
import type { Usage } from "../../llm/types.js";

/** From this share of the context on, the gauge is drawn in yellow. */
export const GAUGE_HIGH = 0.8;
/** Passing this share of the context, the chat says once what to do before it overflows. */
export const NEAR_FULL = 0.9;

/** How much of the model's context the conversation takes. */
export interface ContextGauge {
  used: number;
  limit: number;
  share: number;
}

export interface UsageTotals {
  turns: number;
  inputTokens: number;
  outputTokens: number;
  /** Time the turns took, in ms. */
  durationMs: number;
}

/**
 * The chat's accounting: the session's totals, the size of the last request, and the model's
 * context length as its server lists it (vLLM's `max_model_len`), asked once per model.
 * Where the server does not say, the length stays unknown and no gauge is drawn: a guess
 * would tell the user the wrong moment to compact.
 */
export class UsageMeter {
  private sums: UsageTotals = { turns: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 };
  /** The last model request's usage: its prompt, and the answer that joins the next prompt. */
  private last: Usage | undefined;
  private learned: { model: string; length: Promise<number | undefined> } | undefined;
  private limit: number | undefined;
  private warned = false;

  constructor(
    /** The model in use now (it changes with /model). */
    private readonly model: () => string,
    /** What the model server lists; a failure means the length is unknown. */
    private readonly listing: () => Promise<readonly ListedModel[]>,
  ) {}

  /** Learns the context length of the model in use (once per model); settles when it is known or known to be unknown. */
  async learnContextLength(): Promise<void> {
    const model = this.model();
    if (this.learned?.model !== model) {
      const length = this.listing().then(
        (models) => models.find((listed) => listed.id === model)?.contextLength,
        () => undefined,
      );
      this.learned = { model, length };
    }
    const learning = this.learned;
    const length = await learning.length;
    if (this.learned === learning) this.limit = length;
  }

  /** A listing already made (by /model) tells the length without asking again. */
  knowListing(model: string, models: readonly ListedModel[]): void {
    const length = models.find((listed) => listed.id === model)?.contextLength;
    this.learned = { model, length: Promise.resolve(length) };
    this.limit = length;
  }

  /** The model's context length, if its server said. */
  get contextLength(): number | undefined {
    return this.learned?.model === this.model() ? this.limit : undefined;
  }

  /** Counts what the agent reports: each request's usage, each turn's totals. */
  observe(event: AgentEvent): void {
    if (event.type === "usage") this.last = event.usage;
    else if (event.type === "turn-end") {
      const { usage, durationMs } = event.turn;
      this.sums = {
        turns: this.sums.turns + 1,
        inputTokens: this.sums.inputTokens + usage.inputTokens,
        outputTokens: this.sums.outputTokens + usage.outputTokens,
        durationMs: this.sums.durationMs + durationMs,
      };
    }
  }

  get totals(): UsageTotals {
    return this.sums;
  }

  /** The last request's prompt, in tokens, if the server reported it. */
  get lastPrompt(): number | undefined {
    return this.last?.inputTokens;
  }

  /** The conversation's size in tokens: the last prompt and the answer to it, both of which the next request carries. */
  get contextUsed(): number | undefined {
    return this.last === undefined ? undefined : this.last.inputTokens + this.last.outputTokens;
  }

  /** The conversation against the model's context, when both are known. */
  gauge(): ContextGauge | undefined {
    const limit = this.contextLength;
    const used = this.contextUsed;
    if (limit === undefined || used === undefined) return undefined;
    return { used, limit, share: used / limit };
  }

  /** True once when the conversation passes NEAR_FULL; again only after it fell below (a /compact, a /clear). */
  takeNearFullWarning(): boolean {
    const gauge = this.gauge();
    if (!gauge || gauge.share < NEAR_FULL) {
      this.warned = false;
      return false;
    }
    if (this.warned) return false;
    this.warned = true;
    return true;
  }

  /** The conversation was replaced: its size is now `tokens` (a summary's), or unknown until the next request. */
  conversationReplaced(tokens?: number): void {
    this.last = tokens === undefined ? undefined : { inputTokens: tokens, outputTokens: 0, totalTokens: tokens };
    this.warned = false;
  }
}

/** `842`, `12.3k`, `128k`: a token count at a glance. */
export function shortTokens(count: number): string {
  if (count < 1000) return String(count);
  const thousands = count / 1000;
  return `${thousands < 100 ? String(Number(thousands.toFixed(1))) : String(Math.round(thousands))}k`;
}

/** `context 12.3k/32.8k (38%)` */
export function gaugeText(gauge: ContextGauge): string {
  return `context ${shortTokens(gauge.used)}/${shortTokens(gauge.limit)} (${Math.round(gauge.share * 100)}%)`;
}

/** What to do when the conversation nears or passes the model's context. */
export const CONTEXT_ADVICE = "/compact to continue from a summary of it, or /clear to start afresh";

/** `/usage`: the session's totals, one fact a line. */
export function usageReport(meter: UsageMeter): string {
  const { turns, inputTokens, outputTokens, durationMs } = meter.totals;
  const gauge = meter.gauge();
  const limit = meter.contextLength;
  const last = meter.lastPrompt;
  const lines: Array<[string, string]> = [
    ["turns", String(turns)],
    ["tokens", `${inputTokens.toLocaleString("en-US")} in · ${outputTokens.toLocaleString("en-US")} out`],
    ["last prompt", last === undefined ? "unknown (no turn yet, or the server does not report usage)" : `${last.toLocaleString("en-US")} tokens`],
    [
      "context",
      gauge
        ? `${gauge.used.toLocaleString("en-US")} of ${gauge.limit.toLocaleString("en-US")} tokens (${Math.round(gauge.share * 100)}%)`
        : limit === undefined
          ? "length unknown (the model server does not list it)"
          : `${limit.toLocaleString("en-US")} tokens`,
    ],
    ["time", `${(durationMs / 1000).toFixed(1)} s in turns`],
  ];
  const width = Math.max(...lines.map(([label]) => label.length));
  return lines.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`).join("\n");
}
