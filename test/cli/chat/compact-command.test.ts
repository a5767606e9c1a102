import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import picocolors from "picocolors";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { Agent } from "../../../src/agent/agent.js";
import type { AgentSession } from "../../../src/cli/chat/session.js";
import { runSlashCommand } from "../../../src/cli/chat/slash-commands.js";
import { openSavedSessions, SavedSessions } from "../../../src/cli/ui/saved-sessions.js";
import type { Message } from "../../../src/llm/types.js";

let home: string;
beforeEach(() => (home = mkdtempSync(join(tmpdir(), "toolbridge-compact-"))));
afterEach(() => rmSync(home, { recursive: true, force: true }));

/** A conversation of `count` messages whose compaction leaves one summary message. */
function sessionOf(count: number): AgentSession {
  let messages: Message[] = Array.from({ length: count }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: `message ${i}` }) as Message);
  const agent = {
    get messages() {
      return messages;
    },
    model: { provider: "openai", modelId: "m" },
    async compact() {
      const before = messages.length;
      messages = [{ role: "user", content: "summary of it all" }];
      return { summary: "summary of it all", messages, messagesBefore: before, truncated: false };
    },
  };
  const usage = { contextUsed: undefined, conversationReplaced: () => undefined };
  return { agent, usage } as unknown as AgentSession;
}

it("/compact goes on in a new saved session and keeps the one compacted whole, for --resume", async () => {
  const sessions = openSavedSessions({ XDG_STATE_HOME: join(home, "state") })!;
  const session = sessionOf(52);
  // As the chat saves: under the current id after each turn and command; a new id when the conversation is replaced.
  let id = SavedSessions.newId();
  const first = id;
  sessions.saveConversation(id, session.agent as Agent, []);
  const printed: string[] = [];
  await runSlashCommand("/compact", { session, colors: picocolors.createColors(false), print: (text) => printed.push(text), columns: 80, newConversation: () => (id = SavedSessions.newId()) });
  sessions.saveConversation(id, session.agent as Agent, []);

  expect(id).not.toBe(first);
  expect(sessions.load(first).messages).toHaveLength(52);
  expect(sessions.load(id).messages).toHaveLength(1);
  expect(printed.join("\n")).toContain("continuing in a new saved session; the 52 messages before stay saved (--resume)");
});
