import { describe, expect, it } from "vitest";
import type { AgentEvent, TurnResult } from "../../../src/agent/events.js";
import { PersonTime } from "../../../src/cli/ui/dialog-clock.js";

/** The person's time (approvals, servers' questions) is left out of what a turn reports, in the chat and in `run` alike. */

const turn = (durationMs: number, toolDurationMs: number): TurnResult => ({
  input: "go",
  text: "",
  reasoning: "",
  status: "completed",
  stopReason: "answer",
  limitReached: false,
  iterations: 2,
  toolCalls: [{ id: "c1", name: "t", rawArguments: "{}", outcome: "ok", isError: false, content: "ok", durationMs: toolDurationMs }],
  usage: { inputTokens: 1, outputTokens: 100, totalTokens: 101 },
  durationMs,
  messages: [],
});

describe("PersonTime", () => {
  it("takes the time `run`'s approval and a server's question waited out of the turn, and the question's out of the call", async () => {
    let now = 0;
    const time = new PersonTime(() => now);
    time.startTurn();
    now = 100;
    let answer!: () => void;
    // The approval waits 5 s for the person.
    const approval = time.during("approval", new Promise<void>((resolve) => (answer = resolve)));
    now = 5100;
    answer();
    await approval;
    time.adjust({ type: "tool-call-started", id: "c1", name: "t", arguments: {} });
    now = 5200;
    // A server's question during the call waits 2 s.
    let reply!: () => void;
    const question = time.during("question", new Promise<void>((resolve) => (reply = resolve)));
    now = 7200;
    reply();
    await question;
    now = 7300;
    const finished = time.adjust({ type: "tool-call-finished", id: "c1", name: "t", summary: "ok", isError: false, durationMs: 2200, outcome: "ok" });
    expect(finished).toMatchObject({ durationMs: 200 });
    const end = time.adjust({ type: "turn-end", turn: turn(7400, 2200) }) as Extract<AgentEvent, { type: "turn-end" }>;
    expect(end.turn.durationMs).toBe(400);
    expect(end.turn.toolCalls[0]?.durationMs).toBe(200);
  });

  it("counts a dialog open while any of several is (an approval and a question at once)", async () => {
    let now = 0;
    const time = new PersonTime(() => now);
    time.startTurn();
    let first!: () => void;
    let second!: () => void;
    const a = time.during("approval", new Promise<void>((resolve) => (first = resolve)));
    const b = time.during("question", new Promise<void>((resolve) => (second = resolve)));
    now = 1000;
    first();
    await a;
    now = 3000;
    second();
    await b;
    const end = time.adjust({ type: "turn-end", turn: turn(3500, 0) }) as Extract<AgentEvent, { type: "turn-end" }>;
    expect(end.turn.durationMs).toBe(500);
  });
});
