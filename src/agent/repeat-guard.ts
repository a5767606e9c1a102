import type { ParsedToolCall } from "./tool-arguments.js";

/** How many identical calls in a row make a runaway loop. */
export const MAX_IDENTICAL_CALLS = 3;

/**
 * Spots a model stuck calling the same tool with the same arguments. Arguments are
 * compared as parsed JSON with sorted keys, so whitespace or key order does not hide a repeat.
 */
export class RepeatGuard {
  private lastSignature: string | undefined;
  private count = 0;

  /** Feeds one call in the order the model made it; true when it completes a runaway streak. */
  isRunaway({ call, args }: ParsedToolCall): boolean {
    // Unparseable arguments are compared as written: the same broken text is still a repeat.
    const signature = `${call.name}\u0000${args.ok ? JSON.stringify(sortKeys(args.arguments)) : call.arguments.trim()}`;
    this.count = signature === this.lastSignature ? this.count + 1 : 1;
    this.lastSignature = signature;
    return this.count >= MAX_IDENTICAL_CALLS;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}
