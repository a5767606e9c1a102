import { describe, expect, it } from "vitest";
import { argumentBlocks, diffEdit } from "../../src/agent/argument-view.js";

describe("arguments as a person reviews them", () => {
  it("diffs an edit line by line, keeping the lines both sides share", () => {
    expect(diffEdit("a\nb\nc", "a\nB\nc").lines).toEqual([
      { kind: "same", text: "a" },
      { kind: "removed", text: "b" },
      { kind: "added", text: "B" },
      { kind: "same", text: "c" },
    ]);
  });

  it("shows two unrelated texts of thousands of lines as all old lines then all new ones, with bounded work", () => {
    const before = Array.from({ length: 5000 }, (_, i) => `old ${i}`).join("\n");
    const after = Array.from({ length: 5000 }, (_, i) => `new ${i}`).join("\n");
    const edit = diffEdit(before, after);
    expect(edit).toMatchObject({ removed: 5000, added: 5000 });
    expect(edit.lines[0]).toEqual({ kind: "removed", text: "old 0" });
    expect(edit.lines[5000]).toEqual({ kind: "added", text: "new 0" });
  });

  it("takes only objects of exactly oldText and newText for edits; one with more fields is shown as it is", () => {
    const blocks = argumentBlocks({ edits: [{ oldText: "a", newText: "b", replaceAll: true }] });
    expect(blocks).toEqual([{ kind: "value", name: "edits", json: JSON.stringify([{ oldText: "a", newText: "b", replaceAll: true }], null, 2) }]);
  });
});
