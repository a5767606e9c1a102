import { describe, expect, it } from "vitest";
import { applyApprovalKey, INITIAL_APPROVAL_DIALOG, type ApprovalDialogState, type ArgumentsView } from "../../../src/cli/ui/approval-dialog.js";
import type { Key } from "../../../src/cli/ui/keys.js";

function press(keys: Key[], view?: ArgumentsView) {
  let state: ApprovalDialogState = INITIAL_APPROVAL_DIALOG;
  for (const key of keys) {
    const step = applyApprovalKey(state, key, view);
    if (step.answer) return step.answer;
    state = step.state;
  }
  return state;
}

const t = (text: string): Key => ({ kind: "text", text });

describe("the approval dialog", () => {
  it("allows once with y, for the session with a", () => {
    expect(press([t("y")])).toEqual({ decision: "allow-once" });
    expect(press([t("a")])).toEqual({ decision: "allow-session" });
  });

  it("allows every tool of the server for the session with s", () => {
    expect(press([t("s")])).toEqual({ decision: "allow-server" });
    expect(press([t("3")])).toEqual({ decision: "allow-server" });
  });

  it("chooses with the arrows and Enter", () => {
    expect(press([{ kind: "down" }, { kind: "enter", shift: false }])).toEqual({ decision: "allow-session" });
  });

  it("denies with a typed reason, or none", () => {
    expect(press([t("n"), t("not now"), { kind: "enter", shift: false }])).toEqual({ decision: "deny", reason: "not now" });
    expect(press([t("n"), { kind: "enter", shift: false }])).toEqual({ decision: "deny" });
  });

  it("denies at once on Esc", () => {
    expect(press([{ kind: "escape" }])).toEqual({ decision: "deny" });
  });

  it("ignores other keys", () => {
    expect(press([t("q"), { kind: "left" }])).toEqual(INITIAL_APPROVAL_DIALOG);
  });

  const tall: ArgumentsView = { lines: 30, height: 10, whole: true };
  const pageDown: Key = { kind: "page-down" };

  it("allows only once arguments taller than the dialog have all been shown; denies at any time", () => {
    expect(press([t("y")], tall)).toMatchObject({ unread: true, scroll: 0 });
    expect(press([{ kind: "enter", shift: false }], tall)).toMatchObject({ unread: true });
    expect(press([pageDown, pageDown, t("y")], tall)).toMatchObject({ scroll: 18, unread: true });
    expect(press([pageDown, pageDown, pageDown, t("a")], tall)).toEqual({ decision: "allow-session" });
    expect(press([t("n"), { kind: "enter", shift: false }], tall)).toEqual({ decision: "deny" });
    expect(press([{ kind: "escape" }], tall)).toEqual({ decision: "deny" });
  });

  it("scrolls by the page (PgDn, Space, PgUp) and the line (j, k), within the arguments", () => {
    expect(press([pageDown, t(" "), pageDown, pageDown], tall)).toMatchObject({ scroll: 20, furthest: 20 });
    expect(press([pageDown, pageDown, { kind: "page-up" }], tall)).toMatchObject({ scroll: 9, furthest: 18 });
    expect(press([t("j"), t("j"), t("k")], tall)).toMatchObject({ scroll: 1 });
    expect(press([t("k")], tall)).toMatchObject({ scroll: 0 });
    // Having read to the end, scrolling back up does not take the allow away.
    expect(press([pageDown, pageDown, pageDown, { kind: "page-up" }, t("y")], tall)).toEqual({ decision: "allow-once" });
  });

  it("never allows arguments too long to be shown whole", () => {
    const cut: ArgumentsView = { lines: 5, height: 10, whole: false };
    expect(press([t("y")], cut)).toMatchObject({ unread: true });
    expect(press([t("n"), { kind: "enter", shift: false }], cut)).toEqual({ decision: "deny" });
  });
});
