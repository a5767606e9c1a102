import { describe, expect, it } from "vitest";
import type { Key, Paste } from "../../../src/cli/ui/keys.js";
import { applyKey, EMPTY_PROMPT, type PromptState } from "../../../src/cli/ui/prompt-editor.js";

function typeKeys(keys: Array<Key | Paste>, history: string[] = []): { state: PromptState; sent: string[] } {
  let state = EMPTY_PROMPT;
  const sent: string[] = [];
  for (const key of keys) {
    const step = applyKey(state, key, history);
    state = step.state;
    if (step.submit !== undefined) sent.push(step.submit.text);
  }
  return { state, sent };
}

const text = (t: string): Key => ({ kind: "text", text: t });
const enter: Key = { kind: "enter", shift: false };

describe("the prompt", () => {
  it("sends on Enter and starts empty again", () => {
    const { state, sent } = typeKeys([text("hello"), enter]);
    expect(sent).toEqual(["hello"]);
    expect(state.buffer.text).toBe("");
  });

  it("turns a backslash before Enter into a new line", () => {
    expect(typeKeys([text("a\\"), enter, text("b"), enter]).sent).toEqual(["a\nb"]);
  });

  it("does not send an empty or blank message", () => {
    expect(typeKeys([text("  "), enter]).sent).toEqual([]);
  });

  it("inserts a paste whole without sending it", () => {
    const { state, sent } = typeKeys([{ kind: "paste", text: "one\ntwo", cut: false }]);
    expect(sent).toEqual([]);
    expect(state.buffer.text).toBe("one\ntwo");
  });

  it("walks the history with Up and Down and gives the draft back", () => {
    const history = ["first", "second"];
    const up1 = typeKeys([text("draft"), { kind: "up" }], history);
    expect(up1.state.buffer.text).toBe("second");
    const up2 = typeKeys([text("draft"), { kind: "up" }, { kind: "up" }, { kind: "up" }], history);
    expect(up2.state.buffer.text).toBe("first");
    const back = typeKeys([text("draft"), { kind: "up" }, { kind: "down" }], history);
    expect(back.state.buffer.text).toBe("draft");
  });

  it("moves between the lines of a multi-line message before going through the history", () => {
    const { state } = typeKeys([text("ab"), { kind: "newline" }, text("cd"), { kind: "up" }], ["old"]);
    expect(state.buffer.text).toBe("ab\ncd");
    expect(state.buffer.cursor).toBe(2);
  });

  it("shows a long paste as a label and sends the paste whole, with what was typed around it", () => {
    const log = Array.from({ length: 4210 }, (_, i) => `line ${i} of the log`).join("\n");
    const steps: Array<Key | Paste> = [text("look: "), { kind: "paste", text: log, cut: false }, text(" why?")];
    const { state } = typeKeys(steps);
    expect(state.buffer.text).toBe("look: [pasted 85.3 KB, 4,210 lines] why?");
    expect(typeKeys([...steps, enter]).sent).toEqual([`look: ${log} why?`]);
  });

  it("numbers a second paste of the same size, and says when a paste was cut", () => {
    const long = "x".repeat(2000);
    const { state } = typeKeys([{ kind: "paste", text: long, cut: false }, { kind: "paste", text: long, cut: true }]);
    expect(state.buffer.text).toBe("[pasted 2.0 KB, 1 line][pasted 2.0 KB, 1 line, cut at 1,000,000 characters]");
    const twice = typeKeys([{ kind: "paste", text: long, cut: false }, { kind: "paste", text: long, cut: false }]).state.buffer.text;
    expect(twice).toBe("[pasted 2.0 KB, 1 line][pasted 2.0 KB, 1 line #2]");
  });

  it("deletes a paste's label whole with Backspace, and sends nothing of it", () => {
    const { sent } = typeKeys([text("a"), { kind: "paste", text: "y".repeat(5000), cut: false }, { kind: "backspace" }, text("b"), enter]);
    expect(sent).toEqual(["ab"]);
  });

  it("keeps a short paste in the box as it is", () => {
    expect(typeKeys([{ kind: "paste", text: "a\nb\nc", cut: false }]).state.buffer.text).toBe("a\nb\nc");
  });
});
