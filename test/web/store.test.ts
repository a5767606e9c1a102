import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConversations, MAX_KEPT_RESULT_CHARS, saveConversations, type Conversation } from "../../src/web/store.js";

/** The page's store against a browser whose storage holds about 5 MB, as Chromium's localStorage does. */

const QUOTA_CHARS = 5 * 1024 * 1024;

/** A localStorage that refuses, as a browser does, a value past its quota. */
function fullableStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => {
      if (value.length > QUOTA_CHARS) throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
      items.set(key, value);
    },
  };
}

function conversationWith(result: string): Conversation {
  return {
    id: "c1",
    title: "big",
    model: "m",
    updatedAt: 1,
    turns: [
      {
        id: "t1",
        input: "read the log",
        status: "completed",
        messages: [
          { role: "user", content: "read the log" },
          { role: "assistant", content: "", toolCalls: [{ id: "call-1", name: "read-log", arguments: "{}" }] },
          { role: "tool", toolCallId: "call-1", name: "read-log", content: result },
          { role: "assistant", content: "It is long." },
        ],
      },
    ],
  };
}

describe("the web chat's saved conversations", () => {
  const saved = globalThis.localStorage;
  beforeEach(() => {
    globalThis.localStorage = fullableStorage();
  });
  afterEach(() => {
    globalThis.localStorage = saved;
  });

  it("keep a conversation holding an 8 MB tool result: the result cut and marked, the rest whole, and say so", () => {
    const result = `START ${"x".repeat(8 * 1024 * 1024)} END`;
    const outcome = saveConversations([conversationWith(result)]);
    expect(outcome).toEqual({ saved: true, cut: 1 });
    const [loaded] = loadConversations();
    const tool = loaded?.turns[0]?.messages[2] as { content: string };
    expect(tool.content.startsWith("START xxx")).toBe(true);
    expect(tool.content).not.toContain("END");
    expect(tool.content).toContain(`[cut when saved: ${(MAX_KEPT_RESULT_CHARS / 1024).toFixed(1)} kB of 8192.0 kB kept in this browser]`);
    expect(loaded?.turns[0]?.messages[3]).toEqual({ role: "assistant", content: "It is long." });
  });

  it("keep a short result as it is, and cut nothing", () => {
    expect(saveConversations([conversationWith("the log is short")])).toEqual({ saved: true, cut: 0 });
    expect((loadConversations()[0]?.turns[0]?.messages[2] as { content: string }).content).toBe("the log is short");
  });
});
