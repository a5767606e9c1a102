import type { CallToolResult } from "../../mcp/types.js";

/** One tool call's outcome, kept so the user can read it whole (`/result`) or save its images (`/image`). */
export interface KeptResult {
  number: number;
  name: string;
  /** What the tool returned, when it ran. */
  result: CallToolResult | undefined;
  /** What was shown for it: the summary of the result, or why the call was not run. */
  summary: string;
}

export interface ResultBounds {
  count: number;
  /** The kept results' size, counted as their JSON's characters (base64 images included). */
  chars: number;
}

export const DEFAULT_RESULT_BOUNDS: ResultBounds = { count: 50, chars: 8 * 1024 * 1024 };

/**
 * The chat's tool results, numbered from 1 in the order they came. The newest are kept
 * within a bound on their count and size; an older one asked for is named as dropped.
 */
export class ToolResults {
  private readonly kept: Array<KeptResult & { chars: number }> = [];
  private total = 0;
  private last = 0;

  constructor(private readonly bounds: ResultBounds = DEFAULT_RESULT_BOUNDS) {}

  /** Keeps a result; its number. */
  add(name: string, result: CallToolResult | undefined, summary: string): number {
    const number = ++this.last;
    const chars = (result ? JSON.stringify(result).length : 0) + summary.length;
    this.kept.push({ number, name, result, summary, chars });
    this.total += chars;
    while (this.kept.length > this.bounds.count || (this.total > this.bounds.chars && this.kept.length > 0)) {
      const dropped = this.kept.shift();
      this.total -= dropped?.chars ?? 0;
    }
    return number;
  }

  /** Result `number`, or the last one; else a line saying why there is none. */
  get(number?: number): KeptResult | string {
    if (this.last === 0) return "no tool has been called yet";
    const wanted = number ?? this.last;
    if (!Number.isInteger(wanted) || wanted < 1 || wanted > this.last) return `there is no tool result ${wanted}: they are numbered 1 to ${this.last}`;
    return this.kept.find((entry) => entry.number === wanted) ?? this.droppedLine(wanted);
  }

  /** The newest kept result that satisfies `test`. */
  latest(test: (entry: KeptResult) => boolean): KeptResult | undefined {
    return this.kept.findLast(test);
  }

  private droppedLine(number: number): string {
    const mb = Math.round(this.bounds.chars / (1024 * 1024));
    return `tool result ${number} was dropped: the chat keeps the last ${this.bounds.count} results, ${mb} MB at most`;
  }
}
