import { describe, expect, it } from "vitest";
import { decodeKeys, KeyReader, MAX_PASTE_CHARS } from "../../../src/cli/ui/keys.js";

describe("decodeKeys", () => {
  it("reads each carriage return in a run of typed text as Enter", () => {
    expect(decodeKeys("hi\rthere\r")).toEqual([
      { kind: "text", text: "hi" },
      { kind: "enter", shift: false },
      { kind: "text", text: "there" },
      { kind: "enter", shift: false },
    ]);
  });

  it("tells Shift+Enter (kitty, modifyOtherKeys) and Ctrl+J from Enter", () => {
    expect(decodeKeys("\x1b[13;2u")).toEqual([{ kind: "enter", shift: true }]);
    expect(decodeKeys("\x1b[27;2;13~")).toEqual([{ kind: "enter", shift: true }]);
    expect(decodeKeys("\n")).toEqual([{ kind: "newline" }]);
  });

  it("names control keys and never inserts an unknown escape sequence", () => {
    expect(decodeKeys("\x03")).toEqual([{ kind: "ctrl", letter: "c" }]);
    expect(decodeKeys("\x1b[15~")).toEqual([{ kind: "other" }]);
    expect(decodeKeys("\x7f")).toEqual([{ kind: "backspace" }]);
  });
});

describe("KeyReader", () => {
  it("gives a bracketed paste whole, newlines kept, across events", () => {
    const reader = new KeyReader();
    expect(reader.read("\x1b[200~")).toEqual([]);
    expect(reader.read("line one\rline two\r\n")).toEqual([]);
    expect(reader.read("line three")).toEqual([]);
    expect(reader.read("\x1b[201~")).toEqual([{ kind: "paste", text: "line one\nline two\nline three", cut: false }]);
    expect(reader.read("x")).toEqual([{ kind: "text", text: "x" }]);
  });

  it("finds the markers inside one event with text around them", () => {
    expect(new KeyReader().read("a\x1b[200~b\rc\x1b[201~d")).toEqual([
      { kind: "text", text: "a" },
      { kind: "paste", text: "b\nc", cut: false },
      { kind: "text", text: "d" },
    ]);
  });

  it("keeps only the start of a paste longer than the bound, and says so", () => {
    const reader = new KeyReader();
    reader.read("\x1b[200~");
    reader.read("x".repeat(MAX_PASTE_CHARS));
    reader.read("y".repeat(10));
    const [paste] = reader.read("\x1b[201~");
    expect(paste).toMatchObject({ kind: "paste", cut: true });
    expect((paste as { text: string }).text).toHaveLength(MAX_PASTE_CHARS);
  });
});
