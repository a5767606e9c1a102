import { describe, expect, it } from "vitest";
import { applySearchKey, NEW_SEARCH, type HistorySearch, type SearchStep } from "../../../src/cli/ui/history-search.js";
import type { Key } from "../../../src/cli/ui/keys.js";

const HISTORY = ["deploy staging", "list the tools", "deploy production", "what time is it"];

/** Applies keys in turn from a new search; the last step. */
function keys(...pressed: Key[]): SearchStep {
  let search: HistorySearch = NEW_SEARCH;
  let step: SearchStep = { search };
  for (const key of pressed) {
    step = applySearchKey(search, key, HISTORY);
    if (!("search" in step)) return step;
    search = step.search;
  }
  return step;
}
const text = (value: string): Key => ({ kind: "text", text: value });
const ctrl = (letter: string): Key => ({ kind: "ctrl", letter });

describe("history search (Ctrl-R)", () => {
  it("shows the newest message holding the query, and an older one on each Ctrl-R, staying at the oldest", () => {
    expect(keys(text("deploy"))).toEqual({ search: { query: "deploy", match: 2 } });
    expect(keys(text("deploy"), ctrl("r"))).toEqual({ search: { query: "deploy", match: 0 } });
    expect(keys(text("deploy"), ctrl("r"), ctrl("r"))).toEqual({ search: { query: "deploy", match: 0 } });
  });

  it("narrows as it is typed, and widens again from the newest on Backspace", () => {
    expect(keys(text("deploy"), ctrl("r"), text(" p"))).toEqual({ search: { query: "deploy p", match: undefined } });
    expect(keys(text("deploy"), ctrl("r"), text(" p"), { kind: "backspace" }, { kind: "backspace" })).toEqual({ search: { query: "deploy", match: 2 } });
  });

  it("Enter takes the match; Esc, Ctrl-G and Ctrl-C cancel; Enter with no match cancels", () => {
    expect(keys(text("tools"), { kind: "enter", shift: false })).toEqual({ accept: "list the tools" });
    expect(keys(text("tools"), { kind: "escape" })).toEqual({ cancel: true });
    expect(keys(text("tools"), ctrl("g"))).toEqual({ cancel: true });
    expect(keys(text("tools"), ctrl("c"))).toEqual({ cancel: true });
    expect(keys(text("nothing like it"), { kind: "enter", shift: false })).toEqual({ cancel: true });
  });
});
