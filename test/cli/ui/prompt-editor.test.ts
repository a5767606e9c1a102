import { describe, expect, it } from "vitest";
import type { Key, Paste } from "../../../src/cli/ui/keys.js";
import { applyKey, EMPTY_PROMPT, type PromptState } from "../../../src/cli/ui/prompt-editor.js";

function typeKeys(keys: Array<Key | Paste>, history: string[] = []): { state: PromptState; sent: string[] } {
  let state = EMPTY_PROMPT;
  const sent: string[] = [];
  for (const key of keys) {
    const step = applyKey(state, key, history);
    state = step.state;
    if (step.submit !== undefined) sent.push(step.submit);
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
});
