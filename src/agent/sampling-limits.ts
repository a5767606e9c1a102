/** Per server: how many sampling requests and tokens one minute may take. */
export interface SamplingLimits {
  maxRequestsPerMinute?: number;
  maxTokensPerMinute?: number;
}

export const DEFAULT_SAMPLING_LIMITS = { maxRequestsPerMinute: 10, maxTokensPerMinute: 50_000 } as const;

const WINDOW_MS = 60_000;

/**
 * A sliding one-minute window per server over sampling requests and the tokens they used,
 * so that a server looping on `sampling/createMessage` cannot spend the user's model budget.
 */
export class SamplingBudget {
  private readonly spent = new Map<string, { at: number; tokens: number }[]>();

  constructor(
    private readonly limitsFor: (server: string) => SamplingLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts a request of at most `maxTokens` against the server's minute; returns why it may
   * not run (one line), or a function that puts the tokens it really used in place of the estimate.
   */
  /** The most tokens one request of the server may ask for: all its minute may spend. */
  maxTokensPerRequest(server: string): number {
    return { ...DEFAULT_SAMPLING_LIMITS, ...this.limitsFor(server) }.maxTokensPerMinute;
  }

  take(server: string, maxTokens: number): { refused: string } | { settle: (usedTokens: number) => void } {
    const limits = { ...DEFAULT_SAMPLING_LIMITS, ...this.limitsFor(server) };
    const entries = this.recent(server);
    if (entries.length >= limits.maxRequestsPerMinute) {
      return { refused: `server "${server}" reached its limit of ${limits.maxRequestsPerMinute} sampling requests per minute` };
    }
    const tokens = entries.reduce((sum, entry) => sum + entry.tokens, 0);
    const estimate = Math.min(maxTokens, limits.maxTokensPerMinute);
    if (tokens + estimate > limits.maxTokensPerMinute) {
      return { refused: `server "${server}" reached its limit of ${limits.maxTokensPerMinute} sampling tokens per minute (${tokens} used)` };
    }
    // Counted at the most it may cost until the model says what it cost.
    const entry = { at: this.now(), tokens: estimate };
    entries.push(entry);
    return { settle: (usedTokens) => void (entry.tokens = usedTokens) };
  }

  private recent(server: string): { at: number; tokens: number }[] {
    const since = this.now() - WINDOW_MS;
    const entries = (this.spent.get(server) ?? []).filter((entry) => entry.at > since);
    this.spent.set(server, entries);
    return entries;
  }
}
