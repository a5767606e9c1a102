import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { chat, home, PROMPT, useChatTerminal, vllm } from "../../support/chat-terminal.js";

/**
 * A megabyte pasted into the chat in a real terminal: it stands in the box as one label, typing
 * after it echoes, Ctrl-C still clears it, and the message sent holds the paste whole.
 */

useChatTerminal();

/** 10,000 numbered lines, 999,999 characters: a log pasted to ask about. */
const LOG = Array.from({ length: 10_000 }, (_, i) => `log line ${String(i).padStart(5, "0")} `.padEnd(99, "x")).join("\n");
const LABEL = /\[pasted 976\.6 KB, 10,000 lines\]/;

it("shows a megabyte paste as a label, echoes what is typed after it, and sends the paste whole", async () => {
  const file = join(home, "log.txt");
  writeFileSync(file, LOG);
  const s = await vllm([{ text: "The log is fine." }]);
  // Pasted at once, while the starting screen may still be giving way to the chat: still one paste.
  const t = await chat(s);

  await t.pasteFile(file);
  await t.waitFor(LABEL, "the paste's label in the input box");
  // Ctrl-C still reaches the chat: it clears the box.
  await t.press("C-c");
  await t.waitFor((screen) => !LABEL.test(screen.split("\n").slice(-4).join("\n")) && PROMPT.test(screen), "Ctrl-C to clear the box");

  await t.pasteFile(file);
  await t.waitFor(LABEL, "the paste's label again");
  await t.type(" what is wrong?");
  await t.waitFor(/lines\] what is wrong\?/, "the typed text after the label");
  await t.press("Enter");
  await t.waitFor(/The log is fine\./, "the answer");

  expect(s.chatRequests).toHaveLength(1);
  const sent = (s.chatRequests[0]?.body?.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === "user").at(-1)?.content;
  expect(sent).toBe(`${LOG} what is wrong?`);
  // The conversation on screen shows the label, not ten thousand lines.
  expect(await t.history()).not.toContain("log line 05000");
});
