import { expect, it } from "vitest";
import { chat, PROMPT, useChatTerminal, vllm } from "../../support/chat-terminal.js";
import type { Tmux } from "../../support/tmux.js";
import type { RecordedRequest } from "../../support/vllm-server.js";

/** Keys of the chat in a real terminal beyond typing: Ctrl-L, Ctrl-R. */

useChatTerminal();

it("clears the screen on Ctrl-L, keeping the conversation for the model", async () => {
  const s = await vllm([{ text: "First answer." }, { text: "Second answer." }]);
  const t = await chat(s);
  await t.type("one");
  await t.press("Enter");
  await t.waitFor(/First answer\./, "the first answer");
  await t.press("C-l");
  await t.waitFor((screen) => !screen.includes("First answer.") && PROMPT.test(screen), "the screen cleared, the prompt drawn again");
  await t.type("two");
  await t.press("Enter");
  await t.waitFor(/Second answer\./, "the second answer");
  const messages = (s.chatRequests[1]?.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  expect(messages.filter((m) => m.role !== "system").map((m) => m.content)).toEqual(["one", "First answer.", "two"]);
});

/** Sends each message and waits for its scripted answer. */
async function send(t: Tmux, messages: [string, RegExp][]): Promise<void> {
  for (const [message, answer] of messages) {
    await t.type(message);
    await t.press("Enter");
    await t.waitFor(answer, `the answer to "${message}"`);
  }
}

const userMessages = (request: RecordedRequest | undefined) =>
  ((request?.body?.messages ?? []) as Array<{ role: string; content: unknown }>).filter((m) => m.role === "user").map((m) => m.content);

it("Ctrl-R finds the newest message sent holding what is typed, Ctrl-R again an older one, and Enter takes it into the input box", async () => {
  const s = await vllm([{ text: "Answer one." }, { text: "Answer two." }, { text: "Answer three." }, { text: "Answer four." }]);
  const t = await chat(s);
  await send(t, [
    ["the colour blue", /Answer one\./],
    ["what time is it", /Answer two\./],
    ["the colour red", /Answer three\./],
  ]);
  await t.press("C-r");
  await t.waitFor(/history search: type to find a message sent/, "the search opened");
  await t.type("colour");
  await t.waitFor((screen) => /│ › the colour red/.test(screen) && screen.includes('history search: "colour"'), "the newest match");
  await t.press("C-r");
  await t.waitFor(/│ › the colour blue/, "the older match");
  await t.press("Enter");
  await t.waitFor((screen) => !screen.includes("history search") && /│ › the colour blue/.test(screen), "the match in the input box");
  await t.press("Enter");
  await t.waitFor(/Answer four\./, "the answer");
  expect(userMessages(s.chatRequests[3])).toEqual(["the colour blue", "what time is it", "the colour red", "the colour blue"]);
});

it("Esc leaves the history search and gives back what was being typed", async () => {
  const s = await vllm([{ text: "Answer one." }, { text: "Answer two." }]);
  const t = await chat(s);
  await send(t, [["an old message", /Answer one\./]]);
  await t.type("my draft");
  await t.press("C-r");
  await t.type("old");
  await t.waitFor(/│ › an old message/, "the match");
  await t.press("Escape");
  await t.waitFor((screen) => !screen.includes("history search") && /│ › my draft/.test(screen), "the draft back");
  await t.press("Enter");
  await t.waitFor(/Answer two\./, "the answer");
  expect(userMessages(s.chatRequests[1]).at(-1)).toBe("my draft");
});
