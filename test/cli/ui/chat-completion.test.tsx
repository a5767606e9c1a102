import { render } from "ink-testing-library";
import picocolors from "picocolors";
import { afterEach, describe, expect, it } from "vitest";
import type { Completion } from "../../../src/cli/chat/completion.js";
import type { AgentSession } from "../../../src/cli/chat/session.js";
import { ChatApp } from "../../../src/cli/ui/ChatApp.js";
import { ChatController } from "../../../src/cli/ui/chat-controller.js";
import { InputHistory } from "../../../src/cli/ui/history.js";

const tick = () => new Promise((resolve) => setTimeout(resolve, 80));
let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

/** A completer the test answers by hand, recording what it was asked. */
function handCompleter() {
  const asked: Array<{ text: string; cursor: number; answer: (completion: Completion | undefined) => void; signal: AbortSignal }> = [];
  const complete = (text: string, cursor: number, signal: AbortSignal) => new Promise<Completion | undefined>((answer) => asked.push({ text, cursor, answer, signal }));
  return { asked, complete };
}

function mount(complete: ReturnType<typeof handCompleter>["complete"]) {
  const session = { agent: {} } as unknown as AgentSession;
  const controller = new ChatController(session, picocolors.createColors(false), () => 80);
  const app = render(<ChatApp controller={controller} history={InputHistory.load(undefined)} colors={picocolors.createColors(false)} complete={complete} />);
  unmount = app.unmount;
  return app;
}

const candidates = (from: number, to: number, ...inserts: string[]): Completion => ({ from, to, candidates: inserts.map((insert) => ({ insert, label: insert.trim(), detail: "about it" })) });

describe("ChatApp: Tab completion", () => {
  it("asks on Tab, draws the list under the input with the highlight, and puts the chosen one in", async () => {
    const { asked, complete } = handCompleter();
    const app = mount(complete);
    await tick();
    app.stdin.write("/x");
    await tick();
    app.stdin.write("\t");
    await tick();
    expect(asked.map(({ text, cursor }) => ({ text, cursor }))).toEqual([{ text: "/x", cursor: 2 }]);
    asked[0]!.answer(candidates(0, 2, "/xa ", "/xb ", "/yc "));
    await tick();
    let frame = app.lastFrame() ?? "";
    expect(frame).toMatch(/❯ \/xa\s+about it\n\s+\/xb/);
    expect(frame).toContain("Esc closes");
    app.stdin.write("\x1b[B");
    await tick();
    expect(app.lastFrame()).toMatch(/❯ \/xb/);
    app.stdin.write("\r");
    await tick();
    frame = app.lastFrame() ?? "";
    expect(frame).toContain("› /xb");
    expect(frame).not.toContain("Esc closes");
  });

  it("keeps typing while the answer is awaited, and drops an answer for text that has changed", async () => {
    const { asked, complete } = handCompleter();
    const app = mount(complete);
    await tick();
    app.stdin.write("/he");
    await tick();
    app.stdin.write("\t");
    app.stdin.write("llo");
    await tick();
    expect(app.lastFrame()).toContain("› /hello");
    asked[0]!.answer(candidates(0, 3, "/help "));
    await tick();
    expect(app.lastFrame()).toContain("› /hello");
    expect(app.lastFrame()).not.toContain("/help");
  });

  it("draws a server's candidates without their escape sequences", async () => {
    const { asked, complete } = handCompleter();
    const app = mount(complete);
    await tick();
    app.stdin.write("@x");
    app.stdin.write("\t");
    await tick();
    asked[0]!.answer({
      from: 0,
      to: 2,
      candidates: [
        { insert: "@x://a ", label: "x://a\x1b]2;PWNED\x07", detail: "\x1b[8mhidden" },
        { insert: "@x://b ", label: "x://b\x9b2J", detail: "b" },
      ],
    });
    await tick();
    const frame = app.lastFrame() ?? "";
    expect(frame).toContain("❯ x://a");
    expect(frame).toContain("hidden");
    expect(frame).not.toMatch(/\x1b\]|\x07|\x1b\[8m|\x9b/);
  });

  it("drops the list when Ctrl-C clears the input, so Enter does not put a stale candidate in", async () => {
    const { asked, complete } = handCompleter();
    const app = mount(complete);
    await tick();
    app.stdin.write("/x");
    app.stdin.write("\t");
    await tick();
    asked[0]!.answer(candidates(0, 2, "/xa ", "/xb "));
    await tick();
    expect(app.lastFrame()).toContain("❯ /xa");
    app.stdin.write("\x03");
    await tick();
    expect(app.lastFrame()).not.toContain("❯ /xa");
    app.stdin.write("hi");
    await tick();
    expect(app.lastFrame()).toContain("› hi");
    expect(app.lastFrame()).not.toContain("/xa");
  });

  it("puts a single candidate in without a list, and Esc closes a list leaving the text", async () => {
    const { asked, complete } = handCompleter();
    const app = mount(complete);
    await tick();
    app.stdin.write("@do");
    app.stdin.write("\t");
    await tick();
    asked[0]!.answer(candidates(0, 3, "@docs://intro "));
    await tick();
    expect(app.lastFrame()).toContain("› @docs://intro");
    app.stdin.write("\t");
    await tick();
    asked[1]!.answer(candidates(14, 14, "a ", "b "));
    await tick();
    expect(app.lastFrame()).toContain("❯ a");
    app.stdin.write("\x1b");
    await tick();
    expect(app.lastFrame()).not.toContain("❯ a");
    expect(app.lastFrame()).toContain("› @docs://intro");
  });
});
