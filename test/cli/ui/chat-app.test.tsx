import { render } from "ink-testing-library";
import picocolors from "picocolors";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalAnswer } from "../../../src/agent/approval.js";
import type { AgentEvent, TurnResult } from "../../../src/agent/events.js";
import type { AgentSession } from "../../../src/cli/chat/session.js";
import { UsageMeter } from "../../../src/cli/chat/usage-meter.js";
import { loadHighlighter } from "../../../src/cli/render/code-highlight.js";
import { ChatApp } from "../../../src/cli/ui/ChatApp.js";
import { ChatController } from "../../../src/cli/ui/chat-controller.js";
import { InputHistory } from "../../../src/cli/ui/history.js";
import type { HubTool } from "../../../src/mcp/types.js";

/** An agent whose turns the test ends by hand: each send waits until `finish` is called. */
function fakeSession() {
  const sent: string[] = [];
  let current: { onEvent: (event: AgentEvent) => void; resolve: (turn: TurnResult) => void; signal: AbortSignal | undefined } | undefined;
  const turnResult = (input: string, text: string, status: TurnResult["status"] = "completed"): TurnResult => ({
    input,
    text,
    reasoning: "",
    status,
    stopReason: status === "aborted" ? "aborted" : "answer",
    limitReached: false,
    iterations: 1,
    toolCalls: [],
    usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    durationMs: 500,
    messages: [],
  });
  const agent = {
    send(input: string, options: { signal?: AbortSignal; onEvent?: (event: AgentEvent) => void }) {
      sent.push(input);
      return new Promise<TurnResult>((resolve) => {
        current = { onEvent: options.onEvent ?? (() => undefined), resolve, signal: options.signal };
        options.signal?.addEventListener("abort", () => {
          const turn = turnResult(input, "", "aborted");
          options.onEvent?.({ type: "turn-end", turn });
          resolve(turn);
        });
      });
    },
  };
  return {
    session: { agent, usage: new UsageMeter(() => "m", async () => []) } as unknown as AgentSession,
    sent,
    stream(text: string) {
      current?.onEvent({ type: "text-delta", text });
    },
    emit(event: AgentEvent) {
      current?.onEvent(event);
    },
    finish(text: string, durationMs = 500) {
      const turn = { ...turnResult(sent.at(-1) ?? "", text), durationMs };
      current?.onEvent({ type: "turn-end", turn });
      current?.resolve(turn);
    },
  };
}

// Longer than one frame of streamed text (40 ms), so what was streamed has been drawn.
const tick = () => new Promise((resolve) => setTimeout(resolve, 80));
let unmount: (() => void) | undefined;
afterEach(() => unmount?.());
// A turn waits for the code highlighter once; loaded here, so the tests' timing does not include it.
beforeAll(() => loadHighlighter());

function mount() {
  const fake = fakeSession();
  const controller = new ChatController(fake.session, picocolors.createColors(false), () => 80);
  const app = render(<ChatApp controller={controller} history={InputHistory.load(undefined)} colors={picocolors.createColors(false)} />);
  unmount = app.unmount;
  return { ...fake, controller, app };
}

/** A turn answering "first", with "second" and "third" typed and queued behind it. */
async function twoQueuedBehindAnAnswer() {
  const mounted = mount();
  await tick();
  mounted.app.stdin.write("first\r");
  await tick();
  mounted.stream("The answer ");
  mounted.app.stdin.write("second\r");
  mounted.app.stdin.write("third\r");
  await tick();
  return mounted;
}

describe("ChatApp", () => {
  it("shows what is typed during an answer as queued, apart from the answer, and sends it after", async () => {
    const { app, stream, finish, sent } = mount();
    await tick();
    app.stdin.write("first\r");
    await tick();
    stream("The answer ");
    app.stdin.write("second\r");
    await tick();
    const frame = app.lastFrame() ?? "";
    expect(frame).toContain("queued: second");
    expect(frame).toMatch(/The answer\s*\n/);
    expect(sent).toEqual(["first"]);
    finish("The answer is done.");
    await tick();
    expect(sent).toEqual(["first", "second"]);
  });

  it("answers the approval dialog with a key and gives the keys back to the prompt", async () => {
    const { app, controller } = mount();
    await tick();
    const tool = { name: "fs__write_file", originalName: "write_file", server: "fs", description: "", inputSchema: { type: "object" } } as unknown as HubTool;
    const answer: Promise<ApprovalAnswer> = controller.ask({ tool, arguments: { path: "/tmp/a" }, callId: "1" }, undefined);
    await tick();
    expect(app.lastFrame()).toContain("Run write_file from server fs?");
    expect(app.lastFrame()).toContain('path: "/tmp/a"');
    app.stdin.write("a");
    expect(await answer).toEqual({ decision: "allow-session" });
    await tick();
    expect(app.lastFrame()).not.toContain("Run write_file");
    app.stdin.write("x");
    await tick();
    expect(app.lastFrame()).toContain("› x");
  });

  it("offers to allow every tool of the server for the session, and says why it asks", async () => {
    const { app, controller } = mount();
    await tick();
    const tool = { name: "fs__write_file", originalName: "write_file", server: "fs", description: "", inputSchema: { type: "object" } } as unknown as HubTool;
    const answer: Promise<ApprovalAnswer> = controller.ask({ tool, arguments: { path: "/tmp/a" }, callId: "1", why: "the server does not mark it read-only" }, undefined);
    await tick();
    expect(app.lastFrame()).toContain("s) Allow every tool of this server for the session");
    expect(app.lastFrame()).toContain("Asked because the server does not mark it read-only.");
    app.stdin.write("s");
    expect(await answer).toEqual({ decision: "allow-server" });
  });

  it("denies a waiting approval when the turn is cancelled", async () => {
    const { controller } = mount();
    const abort = new AbortController();
    const tool = { name: "t", originalName: "t", server: "s" } as unknown as HubTool;
    const answer = controller.ask({ tool, arguments: {}, callId: "1" }, abort.signal);
    abort.abort();
    expect(await answer).toEqual({ decision: "deny" });
    expect(controller.getState().approval).toBeUndefined();
  });

  it("cleans escape sequences out of the streamed answer before drawing it", async () => {
    const { app, stream } = mount();
    await tick();
    app.stdin.write("go\r");
    await tick();
    stream("safe \x1b]2;PWNED");
    stream("\x07text \x1b[8mhidden");
    await tick();
    const frame = app.lastFrame() ?? "";
    expect(frame).toContain("safe text hidden");
    expect(frame).not.toContain("\x1b]");
    expect(frame).not.toContain("\x1b[8m");
  });

  it("shows a running tool's seconds and the last progress its server reported", async () => {
    const { app, controller, emit } = mount();
    controller.submit("copy");
    await tick();
    emit({ type: "tool-call-started", id: "c1", name: "copy_files", arguments: { from: "a" } });
    emit({ type: "tool-progress", id: "c1", name: "copy_files", progress: { progress: 1, total: 5, message: "first" } });
    emit({ type: "tool-progress", id: "c1", name: "copy_files", progress: { progress: 2, total: 5, message: "copying \x1b[2Jb.txt" } });
    await tick();
    expect(app.lastFrame()).toMatch(/copy_files\(from: "a"\) · 0 s · 40% copying b\.txt/);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(app.lastFrame()).toMatch(/copy_files\(from: "a"\) · 1 s · 40%/);
  });

  it("leaves the time an approval waited out of the turn's duration and its tokens per second", async () => {
    const { app, controller, finish } = mount();
    controller.submit("write");
    await tick();
    const tool = { name: "fs__write_file", originalName: "write_file", server: "fs" } as unknown as HubTool;
    const answer = controller.ask({ tool, arguments: { path: "/tmp/a" }, callId: "1" }, undefined);
    await new Promise((resolve) => setTimeout(resolve, 700));
    app.stdin.write("y");
    await answer;
    // The agent measured 1 s for the turn, 0.7 s of it the dialog: 0.3 s remain, 5 tokens in them.
    finish("Written.", 1000);
    await tick();
    const line = /10 in · 5 out · ([\d.]+) s · ([\d.]+) tok\/s/.exec(app.lastFrame() ?? "");
    expect(line, app.lastFrame()).not.toBeNull();
    expect(Number(line?.[1])).toBeLessThanOrEqual(0.3);
    expect(Number(line?.[2])).toBeGreaterThanOrEqual(16);
    expect(controller.getState().live).toBeUndefined();
  });

  it("cancels the turn on Esc and keeps the queue waiting, paused, until Enter at an empty prompt sends it", async () => {
    const { app, sent } = await twoQueuedBehindAnAnswer();
    app.stdin.write("\x1b");
    await tick();
    expect(sent).toEqual(["first"]);
    const frame = app.lastFrame() ?? "";
    expect(frame).toContain("(cancelled)");
    expect(frame).toMatch(/queued \(paused\): second\s*\n\s*queued \(paused\): third/);
    expect(frame).toContain("Enter sends the queued messages · ↑ takes the last back to edit · Esc drops them");
    app.stdin.write("\r");
    await tick();
    expect(sent).toEqual(["first", "second"]);
    expect(app.lastFrame()).toContain("queued: third");
  });

  it("drops a paused queue on a second Esc, and ↑ takes the last queued message back to edit", async () => {
    const { app, sent, controller } = await twoQueuedBehindAnAnswer();
    app.stdin.write("\x1b[A");
    await tick();
    expect(app.lastFrame()).toContain("› third");
    expect(controller.getState().queue.map((m) => m.shown)).toEqual(["second"]);
    app.stdin.write("\x15");
    app.stdin.write("\x1b");
    await tick();
    app.stdin.write("\x1b");
    await tick();
    expect(app.lastFrame()).toContain("(1 queued message dropped)");
    expect(controller.getState().queue).toEqual([]);
    expect(sent).toEqual(["first"]);
  });
});
