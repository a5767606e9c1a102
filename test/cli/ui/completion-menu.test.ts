import { describe, expect, it } from "vitest";
import type { Completion } from "../../../src/cli/chat/completion.js";
import { applyCandidate, menuKey, openCompletion } from "../../../src/cli/ui/completion-menu.js";
import { bufferOf } from "../../../src/cli/ui/input-buffer.js";

const completion = (from: number, to: number, ...inserts: string[]): Completion => ({ from, to, candidates: inserts.map((insert) => ({ insert, label: insert.trim() })) });

describe("the completion list", () => {
  it("puts a single candidate in at once, keeping the text after the cursor", () => {
    const buffer = { text: "/he tail", cursor: 3 };
    expect(openCompletion(buffer, completion(0, 3, "/help "))).toEqual({ buffer: { text: "/help  tail", cursor: 6 }, menu: undefined });
  });

  it("puts in the start several candidates share and opens the list on the rest", () => {
    const opened = openCompletion(bufferOf("/completable-prompt E"), completion(20, 21, "Engineering ", "Eng-ops "));
    expect(opened.buffer).toEqual(bufferOf("/completable-prompt Eng"));
    expect(opened.menu).toEqual({ buffer: opened.buffer, completion: completion(20, 23, "Engineering ", "Eng-ops "), index: 0 });
  });

  it("moves the highlight with Tab, Shift+Tab, Up and Down, round the ends", () => {
    const buffer = bufferOf("/");
    const menu = { buffer, completion: completion(0, 1, "/a ", "/b ", "/c "), index: 0 };
    expect(menuKey(menu, buffer, { kind: "tab", shift: false }).menu?.index).toBe(1);
    expect(menuKey(menu, buffer, { kind: "down" }).menu?.index).toBe(1);
    expect(menuKey(menu, buffer, { kind: "up" }).menu?.index).toBe(2);
    expect(menuKey(menu, buffer, { kind: "tab", shift: true }).menu?.index).toBe(2);
  });

  it("puts in the highlighted candidate with Enter, closes with Esc, and lets any other key through", () => {
    const buffer = bufferOf("/");
    const menu = { buffer, completion: completion(0, 1, "/a ", "/b "), index: 1 };
    expect(menuKey(menu, buffer, { kind: "enter", shift: false })).toEqual({ menu: undefined, buffer: bufferOf("/b "), handled: true });
    expect(menuKey(menu, buffer, { kind: "escape" })).toEqual({ menu: undefined, buffer, handled: true });
    expect(menuKey(menu, buffer, { kind: "text", text: "x" })).toEqual({ menu: undefined, buffer, handled: false });
  });

  it("replaces only the word", () => {
    expect(applyCandidate({ text: "a @do b", cursor: 5 }, { from: 2, to: 5, candidates: [] }, { insert: "@docs://x ", label: "" })).toEqual({ text: "a @docs://x  b", cursor: 12 });
  });
});
