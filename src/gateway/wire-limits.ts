import { z } from "zod";

/**
 * How many entries each list of a request may hold, in every wire format (chat completions,
 * Responses, Messages). Reading a request costs time per entry: an 8 MiB body of a million small
 * invalid messages held the event loop 38-51 s in validation. Past a limit the list is refused
 * before any of its entries is read, in one line naming the field and the limit.
 */
export const WIRE_LIMITS = {
  /** Messages of a conversation (chat completions, Messages), items of a Responses input. */
  messages: 10_000,
  /** Tools (or legacy functions) a request declares, and tools a namespace groups. */
  tools: 1000,
  /** Content parts (or blocks) of one message, item or tool result. */
  parts: 1000,
  /** Tool calls of one assistant message. */
  toolCalls: 1000,
} as const;

/** What a list past its limit is refused with: "<field>: 700000 messages; at most 10000 are accepted". */
function tooMany(count: number, what: string, max: number): string {
  return `${count} ${what}; at most ${max} are accepted`;
}

/** A list of at most `max` entries, its length checked before any entry is read. */
export function listOf<T extends z.ZodType>(element: T, max: number, what: string) {
  return z.array(element).max(max, { error: (issue) => tooMany((issue.input as unknown[]).length, what, max) });
}

/**
 * A string, or a list of at most `max` entries, its length checked before the union is tried
 * (a union's own refusal says only "Invalid input", after reading every entry).
 */
export function textOrListOf<T extends z.ZodType>(element: T, max: number, what: string) {
  return z
    .unknown()
    .superRefine((value, context) => {
      if (Array.isArray(value) && value.length > max) context.addIssue({ code: "custom", message: tooMany(value.length, what, max) });
    })
    .pipe(z.union([z.string(), z.array(element)]));
}

/**
 * A part (or block) read as the first of `known` it matches, any other with a string `type` as it
 * is. A part without a string type is refused by that one check first: the union's own refusal,
 * after trying every kind, costs about 30 µs a part (24 s for a body of 700,000 such parts).
 */
export function partOf<const T extends readonly z.ZodType<unknown, { type: string }>[]>(...known: T) {
  const typed = z.looseObject({ type: z.string() });
  return typed.pipe(z.union([...known, typed]));
}
