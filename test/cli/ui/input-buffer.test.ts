import { describe, expect, it, vi } from "vitest";
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

describe("the input buffer in a megabyte", () => {
  const big = "word ".repeat(200_000);

  it("segments only a window around the cursor, so a key costs the same in a megabyte as in a word", () => {
    const segment = vi.spyOn(Intl.Segmenter.prototype, "segment");
    try {
      let buffer = edit.insert(edit.bufferOf(big), "é");
      buffer = edit.left(edit.backspace(buffer));
      edit.splitAtCursor(buffer);
      const lengths = segment.mock.calls.map(([text]) => text.length);
      expect(lengths.length).toBeGreaterThan(0);
      expect(Math.max(...lengths)).toBeLessThan(1000);
    } finally {
      segment.mockRestore();
    }
  });

  it("still moves over a cluster longer than the window whole, and over a line break", () => {
    const zalgo = "e" + "\u0301".repeat(300);
    const buffer = edit.bufferOf(`${big}${zalgo}`);
    expect(edit.backspace(buffer).text).toBe(big);
    expect(edit.left(buffer).cursor).toBe(big.length);
    const afterBreak = { text: "ab\ncd", cursor: 3 };
    expect(edit.left(afterBreak).cursor).toBe(2);
    expect(edit.right({ text: `x${zalgo}y`, cursor: 1 }).cursor).toBe(1 + zalgo.length);
  });
});
