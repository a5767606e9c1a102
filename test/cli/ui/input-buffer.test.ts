import { describe, expect, it } from "vitest";
import * as edit from "../../../src/cli/ui/input-buffer.js";

describe("the input buffer", () => {
  it("deletes a wide character whole", () => {
    expect(edit.backspace(edit.bufferOf("現在"))).toEqual({ text: "現", cursor: 1 });
  });

  it("moves over an emoji with a modifier and a flag as one character", () => {
    const text = "a👍🏽🇹🇼b";
    const atEnd = edit.bufferOf(text);
    const beforeB = edit.left(atEnd);
    const beforeFlag = edit.left(beforeB);
    expect(text.slice(beforeFlag.cursor, beforeB.cursor)).toBe("🇹🇼");
    expect(edit.backspace(beforeFlag)).toEqual({ text: "a🇹🇼b", cursor: 1 });
  });

  it("counts the cursor's column in terminal cells", () => {
    expect(edit.cursorPosition(edit.bufferOf("ab\n現在x"))).toEqual({ line: 1, column: 5 });
  });

  it("keeps the display column moving up over wide characters", () => {
    const down = edit.bufferOf("現在是\nabcdef");
    const at4 = { ...down, cursor: down.text.length - 2 };
    const up = edit.verticalMove(at4, -1);
    expect(up?.cursor).toBe(2);
    expect(edit.verticalMove(edit.bufferOf("one line"), -1)).toBeUndefined();
  });

  it("deletes the word before the cursor and the line around it", () => {
    expect(edit.deleteWordBefore(edit.bufferOf("send the file"))).toEqual({ text: "send the ", cursor: 9 });
    const mid = { text: "one two", cursor: 3 };
    expect(edit.deleteToLineStart(mid)).toEqual({ text: " two", cursor: 0 });
    expect(edit.deleteToLineEnd(mid)).toEqual({ text: "one", cursor: 3 });
  });

  it("draws the cursor on the character under it, or on a space at the end of a line", () => {
    expect(edit.splitAtCursor({ text: "ab\ncd", cursor: 2 })).toEqual({ before: "ab", under: " ", after: "\ncd" });
    expect(edit.splitAtCursor({ text: "現在", cursor: 0 })).toEqual({ before: "", under: "現", after: "在" });
  });
});
