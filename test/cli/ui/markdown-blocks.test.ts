import { describe, expect, it } from "vitest";
import { splitFinishedMarkdown } from "../../../src/cli/ui/markdown-blocks.js";

describe("splitFinishedMarkdown", () => {
  it("finishes the blocks before the last blank line and keeps the one being written", () => {
    expect(splitFinishedMarkdown("one\n\ntwo\n\nthr")).toEqual({ finished: "one\n\ntwo\n", rest: "thr" });
  });

  it("never cuts inside a code fence", () => {
    expect(splitFinishedMarkdown("```\na\n\nb\n")).toEqual({ finished: "", rest: "```\na\n\nb\n" });
    expect(splitFinishedMarkdown("```\na\n\nb\n```\n\nafter")).toEqual({ finished: "```\na\n\nb\n```\n", rest: "after" });
  });

  it("keeps everything while no block is finished", () => {
    expect(splitFinishedMarkdown("a line\nanother")).toEqual({ finished: "", rest: "a line\nanother" });
  });
});
