import { render } from "ink-testing-library";
import picocolors from "picocolors";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/events.js";
import type { AgentSession } from "../../../src/cli/chat/session.js";
import { UsageMeter } from "../../../src/cli/chat/usage-meter.js";
import { ChatController } from "../../../src/cli/ui/chat-controller.js";
import type { ChatItem } from "../../../src/cli/ui/chat-items.js";
import { ChatItemView } from "../../../src/cli/ui/ChatItemView.js";

const plain = picocolors.createColors(false);
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

/** A controller fed one turn of events; the items it shows, and its kept results. */
async function afterTurn(events: AgentEvent[]) {
  const agent = {
    async send(input: string, options: { onEvent?: (event: AgentEvent) => void }) {
      for (const event of events) options.onEvent?.(event);
      const turn = { input, text: "", reasoning: "", status: "completed", stopReason: "answer", limitReached: false, iterations: 1, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, durationMs: 1, messages: [] };
      options.onEvent?.({ type: "turn-end", turn } as AgentEvent);
      return turn;
    },
  };
  const controller = new ChatController({ agent, usage: new UsageMeter(() => "m", async () => []) } as unknown as AgentSession, plain, () => 80);
  controller.submit("go");
  await new Promise((resolve) => setTimeout(resolve, 20));
  while (controller.getState().live) await new Promise((resolve) => setTimeout(resolve, 20));
  return controller;
}

function draw(item: ChatItem): string {
  const app = render(<ChatItemView item={item} colors={plain} width={80} />);
  unmount = app.unmount;
  return app.lastFrame() ?? "";
}

describe("tool blocks", () => {
  it("numbers each call, shows the head of its result and where to read it whole", async () => {
    const long = `${"many words ".repeat(30)}`;
    const controller = await afterTurn([
      { type: "tool-call-started", id: "a", name: "search", arguments: { q: "x" } },
      { type: "tool-call-finished", id: "a", name: "search", summary: `${long.slice(0, 159)}…`, isError: false, durationMs: 12, outcome: "ok", result: { content: [{ type: "text", text: long }] } },
      { type: "tool-call-started", id: "b", name: "write", arguments: {} },
      { type: "tool-call-finished", id: "b", name: "write", summary: "denied", isError: true, durationMs: 1, outcome: "denied" },
    ]);
    const tools = controller.getState().items.filter((item) => item.kind === "tool");
    const first = draw(tools[0]!);
    expect(first).toMatch(/^✓ \[1\] search\(q: "x"\) 12 ms/);
    expect(first).toContain("(/result 1 shows it whole)");
    expect(draw(tools[1]!)).toMatch(/^⊘ \[2\] write/);
    expect(controller.toolResults.get(1)).toMatchObject({ name: "search", result: { content: [{ type: "text", text: long }] } });
  });

  it("describes an image and a sound from a tool: type, pixels, bytes, and how to save the image", async () => {
    const controller = await afterTurn([
      { type: "tool-call-started", id: "a", name: "draw", arguments: {} },
      {
        type: "tool-call-finished",
        id: "a",
        name: "draw",
        summary: "[image image/png]",
        isError: false,
        durationMs: 3,
        outcome: "ok",
        result: { content: [{ type: "image", mimeType: "image/png", data: PNG_1X1 }, { type: "audio", mimeType: "audio/wav", data: "AAAA" }] },
      },
    ]);
    const frame = draw(controller.getState().items.find((item) => item.kind === "tool")!);
    expect(frame).toMatch(/image image\/png, 1×1 px, \d+ bytes · \/image 1 saves it/);
    expect(frame).toContain("audio audio/wav, 3 bytes");
    expect(frame).not.toMatch(/audio audio\/wav, 3 bytes ·/);
  });

  it("names an image once: on its own line, not again in the summary beside the text", async () => {
    const controller = await afterTurn([
      { type: "tool-call-started", id: "a", name: "annotate", arguments: {} },
      {
        type: "tool-call-finished",
        id: "a",
        name: "annotate",
        summary: "Operation completed [image image/png]",
        isError: false,
        durationMs: 3,
        outcome: "ok",
        result: { content: [{ type: "text", text: "Operation completed" }, { type: "image", mimeType: "image/png", data: PNG_1X1 }] },
      },
      { type: "tool-call-started", id: "b", name: "draw", arguments: {} },
      { type: "tool-call-finished", id: "b", name: "draw", summary: "[image image/png]", isError: false, durationMs: 3, outcome: "ok", result: { content: [{ type: "image", mimeType: "image/png", data: PNG_1X1 }] } },
    ]);
    const [annotated, drawn] = controller.getState().items.filter((item) => item.kind === "tool").map(draw);
    expect(annotated).toContain("Operation completed");
    expect(annotated!.match(/image\/png/g)).toHaveLength(1);
    expect(drawn!.match(/image\/png/g)).toHaveLength(1);
    expect(drawn!.split("\n")).toHaveLength(2);
  });
});
