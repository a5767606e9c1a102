import { render } from "ink-testing-library";
import picocolors from "picocolors";
import { afterEach, describe, expect, it } from "vitest";
import type { LiveTurn } from "../../../src/cli/ui/chat-controller.js";
import { DialogClock } from "../../../src/cli/ui/dialog-clock.js";
import { LiveTurnView } from "../../../src/cli/ui/LiveTurnView.js";

let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

/** An answer that began and whose last piece came `silentMs` ago. */
function answerSilentFor(silentMs: number): LiveTurn {
  const now = Date.now();
  return { startedAt: now - silentMs - 1000, lastHeardAt: now - silentMs, waitingFor: [], answered: true, text: "The answer so far", reasoning: "", running: [] };
}

function frameOf(live: LiveTurn, paused = false): string {
  const app = render(<LiveTurnView live={live} colors={picocolors.createColors(false)} width={80} clock={new DialogClock()} paused={paused} />);
  unmount = app.unmount;
  return app.lastFrame() ?? "";
}

describe("the turn in progress", () => {
  it("says when an answer that began has stopped coming, for how long, and how to stop it", () => {
    const frame = frameOf(answerSilentFor(12_400));
    expect(frame).toContain("The answer so far");
    expect(frame).toMatch(/the model server has sent nothing for 12 s · Esc or Ctrl-C stops the answer/);
  });

  it("says nothing of a stall while the answer flows, or while a dialog waits for the person", () => {
    expect(frameOf(answerSilentFor(200))).not.toContain("sent nothing");
    expect(frameOf(answerSilentFor(60_000), true)).not.toContain("sent nothing");
  });
});
