import { describe, expect, it } from "vitest";
import type { ToolCallRecord, TurnResult } from "../../src/agent/events.js";
import { answerNumbers, judgeTurn } from "../../src/agent/eval/judge.js";
import { bestEvalMode } from "../../src/agent/eval/runner.js";
import type { EvalTask } from "../../src/agent/eval/task-set.js";

function call(name: string, args: Record<string, unknown>, outcome: ToolCallRecord["outcome"], result?: number | string): ToolCallRecord {
  const content = result === undefined ? [] : [{ type: "text" as const, text: String(result) }];
  return {
    id: `call-${name}`,
    name,
    rawArguments: JSON.stringify(args),
    arguments: args,
    outcome,
    isError: outcome !== "ok",
    content: "",
    durationMs: 1,
    ...(result === undefined ? {} : { result: { content, ...(typeof result === "number" ? { structuredContent: { result: { result } } } : {}) } }),
  };
}

function turn(text: string, toolCalls: ToolCallRecord[]): TurnResult {
  return { input: "", text, reasoning: "", status: "completed", stopReason: "answer", limitReached: false, iterations: 1, toolCalls, usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 }, durationMs: 1, messages: [] };
}

const divide: EvalTask = { id: "d", category: "single", prompt: "7 / 3?", tools: "math", expect: { kind: "value", values: [7 / 3], accept: ["divide", "batch_calculate"] } };
const chain: EvalTask = { id: "c", category: "multi", prompt: "(2 + 3) × 4?", tools: "math", expect: { kind: "value", values: [20], accept: ["add", "multiply", "batch_calculate"], partials: [5] } };
const none: EvalTask = { id: "n", category: "no-tool", prompt: "Symbol for gold?", tools: "all", expect: { kind: "none", answer: ["Au"] } };
const date: EvalTask = { id: "t", category: "time", prompt: "Date in Tokyo?", tools: "time", expect: { kind: "date", timezone: "Asia/Tokyo", format: "date-only" } };

describe("judging an eval task by its result", () => {
  it("reads numbers with thousands separators and a typographic minus as written", () => {
    expect(answerNumbers("It is 1,113,238, or −50.5 and 3e2.")).toEqual([1113238, -50.5, 300]);
  });

  it("takes a quotient rounded to the decimals shown, but not one rounded to a whole number", () => {
    const divided = call("divide", { a: 7, b: 3 }, "ok", 7 / 3);
    expect(judgeTurn(divide, turn("About 2.33.", [divided]))).toMatchObject({ right: true, validCalls: 1, wrongArguments: 0, tokens: 7 });
    expect(judgeTurn(divide, turn("About 2.", [divided]))).toMatchObject({ right: false, why: `the answer does not state ${7 / 3}` });
  });

  it("counts a right tool giving a number the single-step task does not need as wrong arguments", () => {
    const swapped = call("divide", { a: 3, b: 7 }, "ok", 3 / 7);
    expect(judgeTurn(divide, turn("0.43", [swapped]))).toMatchObject({ right: false, wrongArguments: 1, validCalls: 1, why: `no call gave ${7 / 3}` });
  });

  it("lets a multi-step task take another route to the same result", () => {
    const batch = call("batch_calculate", { operations: "(2+3)*4" }, "ok", 20);
    expect(judgeTurn(chain, turn("It is 20.", [batch]))).toMatchObject({ right: true, wrongArguments: 0, wrongTool: 0 });
    const odd = call("multiply", { a: 2, b: 4 }, "ok", 8);
    expect(judgeTurn(chain, turn("It is 20.", [odd, call("add", { a: 8, b: 12 }, "ok", 20)]))).toMatchObject({ right: true, wrongArguments: 0 });
  });

  it("matches a no-tool answer by whole words, and counts any call as a false call", () => {
    expect(judgeTurn(none, turn("Au.", []))).toMatchObject({ right: true });
    expect(judgeTurn(none, turn("Probably August.", []))).toMatchObject({ right: false, why: "the answer does not say Au" });
    expect(judgeTurn(none, turn("Au", [call("add", { a: 1, b: 2 }, "ok", 3)]))).toMatchObject({ right: false, falseCalls: 1 });
  });

  it("wants the date get-date returned for the zone asked, in the answer", () => {
    const tokyo = call("get-date", { timezone: "Asia/Tokyo", format: "date-only" }, "ok", "12/8/2026");
    expect(judgeTurn(date, turn("It is 8 December 2026 in Tokyo.", [tokyo]))).toMatchObject({ right: true });
    expect(judgeTurn(date, turn("It is 7 December 2026.", [tokyo]))).toMatchObject({ right: false, why: "the answer does not state 8 from get-date" });
    const utc = call("get-date", { format: "date-only" }, "ok", "12/7/2026");
    expect(judgeTurn(date, turn("7 December 2026", [utc]))).toMatchObject({ right: false, wrongArguments: 1 });
  });
});

describe("the best mode of an eval", () => {
  it("is the one with most tasks right, the first of native-strict, native, prompt on a tie, none when nothing was right", () => {
    expect(bestEvalMode([{ mode: "prompt", right: 9 }, { mode: "native", right: 9 }, { mode: "native-strict", right: 3 }])).toBe("native");
    expect(bestEvalMode([{ mode: "prompt", right: 10 }, { mode: "native", right: 9 }])).toBe("prompt");
    expect(bestEvalMode([{ mode: "native", right: 0 }])).toBeUndefined();
  });
});
