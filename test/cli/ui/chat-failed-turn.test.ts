import picocolors from "picocolors";
import { beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent, TurnResult } from "../../../src/agent/events.js";
import type { AgentSession } from "../../../src/cli/chat/session.js";
import { UsageMeter } from "../../../src/cli/chat/usage-meter.js";
import { loadHighlighter } from "../../../src/cli/render/code-highlight.js";
import { ChatController } from "../../../src/cli/ui/chat-controller.js";
import type { Message } from "../../../src/llm/types.js";

beforeAll(() => loadHighlighter());

/** An agent whose every turn fails after the model sent `partial` (nothing by default). */
function failingSession(partial = "") {
  let conversation: Message[] = [];
  const agent = {
    get messages() {
      return conversation;
    },
    replaceMessages(messages: Message[]) {
      conversation = [...messages];
    },
    async send(input: string, options: { onEvent?: (event: AgentEvent) => void }): Promise<TurnResult> {
      const added: Message[] = [{ role: "user", content: input }];
      if (partial !== "") added.push({ role: "assistant", content: partial });
      conversation = [...conversation, ...added];
      const error = { code: "connection", message: "Cannot reach the model server at http://127.0.0.1:9/v1 (connection refused)." };
      options.onEvent?.({ type: "error", error } as AgentEvent);
      const turn = {
        input,
        text: partial,
        reasoning: "",
        status: "failed",
        stopReason: "error",
        limitReached: false,
        iterations: 1,
        toolCalls: [],
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        durationMs: 5,
        messages: added,
        error,
      } as unknown as TurnResult;
      options.onEvent?.({ type: "turn-end", turn });
      return turn;
    },
  };
  const session = { agent, usage: new UsageMeter(() => "m", async () => []), ready: Promise.resolve() } as unknown as AgentSession;
  return { session, messages: () => conversation };
}

async function sendAndWait(controller: ChatController, text: string): Promise<void> {
  controller.submit(text);
  await new Promise<void>((resolve) => {
    const stop = controller.subscribe(() => {
      if (!controller.getState().live && controller.getState().queue.length === 0 && controller.getState().items.some((item) => item.kind === "notice" && item.tone === "error")) {
        stop();
        resolve();
      }
    });
  });
}

describe("a turn that failed", () => {
  it("is taken out of the conversation when the model said nothing, so sending it again does not send it twice", async () => {
    const { session, messages } = failingSession();
    const controller = new ChatController(session, picocolors.createColors(false), () => 80);
    await sendAndWait(controller, "hello?");
    expect(messages()).toEqual([]);
    expect(controller.getState().items.map((item) => ("text" in item ? item.text : ""))).toContain("the message is not kept in the conversation: ↑ brings it back to send again");
  });

  it("stays when the model had begun to answer: the conversation shows what the person saw", async () => {
    const { session, messages } = failingSession("Half an ans");
    const controller = new ChatController(session, picocolors.createColors(false), () => 80);
    await sendAndWait(controller, "hello?");
    expect(messages()).toHaveLength(2);
  });
});
