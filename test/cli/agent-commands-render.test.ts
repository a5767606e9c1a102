import picocolors from "picocolors";
import { describe, expect, it } from "vitest";
import type { AgentEvent, TurnResult } from "../../src/agent/events.js";
import { ProgressThrottle } from "../../src/cli/render/progress-throttle.js";
import { TurnView } from "../../src/cli/render/turn-view.js";

const off = picocolors.createColors(false);

function turn(partial: Partial<TurnResult>): TurnResult {
  return {
    input: "q",
    text: "",
    reasoning: "",
    status: "completed",
    stopReason: "answer",
    limitReached: false,
    iterations: 1,
    toolCalls: [],
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    durationMs: 1,
    messages: [],
    ...partial,
  };
}

describe("TurnView", () => {
  function view(
    options: { verbose?: boolean; streamAnswer?: boolean; endpoint?: () => { url: string; model: string }; progress?: ProgressThrottle } = {},
  ) {
    let stdout = "";
    let stderr = "";
    const v = new TurnView({
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
      outColors: off,
      errColors: off,
      streamAnswer: options.streamAnswer ?? true,
      showReasoning: false,
      verbose: options.verbose ?? false,
      endpoint: options.endpoint ?? (() => ({ url: "http://127.0.0.1:8000/v1", model: "qwen" })),
      ...(options.progress ? { progress: options.progress } : {}),
    });
    return { v, out: () => stdout, err: () => stderr };
  }

  it("shows each tool call with its arguments, then its duration and a short result, errors marked", () => {
    const { v, err } = view();
    const events: AgentEvent[] = [
      { type: "tool-call-started", id: "a", name: "get-date", arguments: { timezone: "Asia/Taipei" } },
      { type: "tool-call-finished", id: "a", name: "get-date", summary: "1/7/2026", isError: false, durationMs: 12.4, outcome: "ok" },
      { type: "tool-call-finished", id: "b", name: "get-date", summary: "Unknown timezone", isError: true, durationMs: 3, outcome: "tool-error" },
    ];
    for (const e of events) v.handle(e);
    expect(err()).toBe('  ⚙ get-date {"timezone":"Asia/Taipei"}\n  ✓ get-date 12 ms  1/7/2026\n  ✗ get-date 3 ms  Unknown timezone\n');
  });

  it("shows a tool call's arguments on one line, cut to 200 characters", () => {
    const { v, err } = view();
    v.handle({ type: "tool-call-started", id: "a", name: "write", arguments: '{"text": "line one\n\n   line two"}' });
    v.handle({ type: "tool-call-started", id: "b", name: "write", arguments: { text: "x".repeat(300) } });
    const lines = err().split("\n");
    expect(lines[0]).toBe('  ⚙ write {"text": "line one line two"}');
    expect(lines[1]).toBe(`  ⚙ write ${'{"text":"'.concat("x".repeat(300)).slice(0, 199)}…`);
  });

  it("names in its trace the model in use at each turn, not the one it started with", () => {
    let model = "qwen";
    const { v, err } = view({ verbose: true, endpoint: () => ({ url: "http://127.0.0.1:8000/v1", model }) });
    v.handle({ type: "model-request", iteration: 1, withTools: true, toolCount: 1 });
    model = "llama";
    v.handle({ type: "model-request", iteration: 1, withTools: true, toolCount: 1 });
    const lines = err().split("\n");
    expect(lines[0]).toBe("[toolbridge] sending request to http://127.0.0.1:8000/v1 (model qwen, 1 tool)");
    expect(lines[1]).toBe("[toolbridge] sending request to http://127.0.0.1:8000/v1 (model llama, 1 tool)");
  });

  it("ends a half-written answer line before writing a progress line", () => {
    const { v, out, err } = view();
    v.handle({ type: "text-delta", text: "Let me check." });
    v.handle({ type: "tool-call-started", id: "a", name: "t", arguments: {} });
    expect(out()).toBe("Let me check.\n");
    expect(err()).toBe("  ⚙ t {}\n");
  });

  it("shows 100,000 progress notifications of a call as one line a second, not 100,000 lines", () => {
    let clock = 0;
    const { v, err } = view({ progress: new ProgressThrottle(1000, () => clock) });
    v.handle({ type: "tool-call-started", id: "a", name: "slow", arguments: {} });
    for (let i = 1; i <= 100_000; i++) {
      // 100,000 notifications over 2.5 seconds.
      clock = i / 40;
      v.handle({ type: "tool-progress", id: "a", name: "slow", progress: { progress: i, total: 100_000 } });
    }
    v.handle({ type: "tool-call-finished", id: "a", name: "slow", summary: "done", isError: false, durationMs: 2500, outcome: "ok" });
    expect(err().split("\n").filter((line) => line.includes("…"))).toEqual([
      "    … slow 0%",
      "    … slow 40%",
      "    … slow 80%",
    ]);
    expect(err()).toContain("✓ slow 2500 ms  done");
  });

  it("says when the answer came at the tool-call limit or was cancelled", () => {
    const { v, err } = view();
    v.handle({ type: "turn-end", turn: turn({ limitReached: true, stopReason: "max-iterations", iterations: 6 }) });
    v.handle({ type: "turn-end", turn: turn({ status: "aborted", stopReason: "aborted" }) });
    expect(err()).toBe("(stopped calling tools: 5 rounds of tool calls; the answer is from what it had)\n(cancelled)\n");
  });
});
