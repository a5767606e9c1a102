import { describe, expect, it } from "vitest";
import { RepeatGuard } from "../../src/agent/repeat-guard.js";
import { parseToolArguments, type ParsedToolCall } from "../../src/agent/tool-arguments.js";

const parsed = (name: string, args: string): ParsedToolCall => ({ call: { id: "", name, arguments: args }, args: parseToolArguments(args) });

describe("RepeatGuard", () => {
  it("counts empty, whitespace-only and {} arguments as the same call, as the runner does", () => {
    const guard = new RepeatGuard();
    expect([parsed("t", "  "), parsed("t", "{}"), parsed("t", "")].map((call) => guard.isRunaway(call))).toEqual([false, false, true]);
  });

  it("sees through key order and spacing", () => {
    const guard = new RepeatGuard();
    const streak = [parsed("t", '{"a":1,"b":2}'), parsed("t", '{ "b": 2, "a": 1 }'), parsed("t", '{"b":2,"a":1}')];
    expect(streak.map((call) => guard.isRunaway(call))).toEqual([false, false, true]);
  });

  it("starts a new streak when the tool or the arguments change", () => {
    const guard = new RepeatGuard();
    const calls = [parsed("t", "{}"), parsed("t", "{}"), parsed("u", "{}"), parsed("t", '{"a":1}'), parsed("t", "{}")];
    expect(calls.map((call) => guard.isRunaway(call))).toEqual([false, false, false, false, false]);
  });

  it("compares broken argument text as written", () => {
    const guard = new RepeatGuard();
    expect([parsed("t", "{oops"), parsed("t", " {oops "), parsed("t", "{oops")].map((call) => guard.isRunaway(call))).toEqual([false, false, true]);
  });
});
