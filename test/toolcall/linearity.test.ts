import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolCallParser } from "../../src/toolcall/parser.js";
import { FAMILY_STREAMS, familyText } from "./family-streams.js";
import { randomChunks } from "./random-chunks.js";

/**
 * The parser's cost per character stays flat as a stream grows, in every call format, measured
 * as work done rather than time (the machine is shared, so times say little): while a stream
 * is parsed, the string and regular-expression primitives the parser is built on count what
 * they are given. Characters read one by one (charCodeAt, charAt), characters handed to a
 * regular expression (from where it starts), to JSON.parse, to a search or split, and the length
 * of every slice and join. A parser that read the held text again on each delta would do about
 * SIZES[1] / SIZES[0] times more work per character in the larger stream.
 *
 * What it cannot see: steps inside the engine's regular-expression matcher and JSON.parse
 * (backtracking), which only the timing bench (bench/parser.ts) shows.
 */
const KB = 1024;
const SIZES = [4 * KB, 128 * KB] as const;
/** Work per character in the large stream over the small one; quadratic work would give about 32. */
const MAX_RATIO = 1.25;
/** Work per character past which a stream is stopped (every format does under 15), so a quadratic parser fails at once instead of running for minutes. */
const STOP_AT = 100;

class WorkLimit extends Error {}

let work = 0;
let limit = Infinity;
let armed = false;
const restore: Array<() => void> = [];

/** Replaces `owner[key]` by a wrapper that adds `cost(this, args, result)` to the work while armed. */
function count<T extends object>(owner: T, key: keyof T & string, cost: (self: unknown, args: unknown[], result: unknown) => number): void {
  const original = owner[key] as (...args: unknown[]) => unknown;
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    const result = original.apply(this, args);
    if (armed) {
      work += cost(this, args, result);
      if (work > limit) throw new WorkLimit();
    }
    return result;
  };
  Object.defineProperty(owner, key, { value: wrapped, writable: true, configurable: true });
  restore.push(() => Object.defineProperty(owner, key, { value: original, writable: true, configurable: true }));
}

const length = (value: unknown): number => (typeof value === "string" ? value.length : 0);

beforeAll(() => {
  const one = () => 1;
  count(String.prototype, "charCodeAt", one);
  count(String.prototype, "charAt", one);
  count(String.prototype, "codePointAt", one);
  for (const key of ["indexOf", "lastIndexOf", "includes", "split", "trim", "toLowerCase"] as const) {
    count(String.prototype, key, (self) => length(self));
  }
  count(String.prototype, "slice", (_self, _args, result) => length(result));
  count(String.prototype, "substring", (_self, _args, result) => length(result));
  count(Array.prototype, "join", (_self, _args, result) => length(result));
  // Every regular-expression use (test, match, matchAll, replace, split) goes through exec.
  count(RegExp.prototype, "exec", (self, args) => {
    const from = self instanceof RegExp && (self.global || self.sticky) ? self.lastIndex : 0;
    return Math.max(1, length(args[0]) - from);
  });
  count(JSON, "parse", (_self, args) => length(args[0]));
});
afterAll(() => {
  for (const undo of restore.reverse()) undo();
});

/** The work per character of parsing `text` in 1-4 character deltas (Infinity past STOP_AT); it must hold exactly one call. */
function workPerChar(text: string): number {
  const parser = createToolCallParser({ tools: ["write_file"] });
  const deltas = randomChunks(text, 42, 4);
  let calls = 0;
  work = 0;
  limit = STOP_AT * text.length;
  armed = true;
  try {
    for (const delta of deltas) for (const e of parser.push(delta)) if (e.type === "tool-call") calls++;
    for (const e of parser.end()) if (e.type === "tool-call") calls++;
  } catch (err) {
    if (err instanceof WorkLimit) return Infinity;
    throw err;
  } finally {
    armed = false;
  }
  expect(calls).toBe(1);
  return work / text.length;
}

describe.each(Object.entries(FAMILY_STREAMS))("%s", (_family, make) => {
  it(`does no more work per character in a ${SIZES[1] / KB} KB stream than in a ${SIZES[0] / KB} KB one`, () => {
    const [small = 0, large = Infinity] = SIZES.map((size) => workPerChar(familyText(make, size)));
    expect(small, `work per character at ${SIZES[0] / KB} KB`).toBeGreaterThan(0);
    expect(small, `work per character at ${SIZES[0] / KB} KB`).toBeLessThan(STOP_AT);
    expect(large, `work per character: ${small.toFixed(2)} at ${SIZES[0] / KB} KB, ${large.toFixed(2)} at ${SIZES[1] / KB} KB`).toBeLessThanOrEqual(small * MAX_RATIO);
  });
});
