import { expect, it } from "vitest";
import { chat, PROMPT, useChatTerminal, vllm } from "../../support/chat-terminal.js";

/** Keys of the chat in a real terminal beyond typing: Ctrl-L. */

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
