import { describe, expect, it } from "vitest";
import { applyApprovalKey, INITIAL_APPROVAL_DIALOG, type ApprovalDialogState } from "../../../src/cli/ui/approval-dialog.js";
import type { Key } from "../../../src/cli/ui/keys.js";

function press(keys: Key[]) {
  let state: ApprovalDialogState = INITIAL_APPROVAL_DIALOG;
  for (const key of keys) {
    const step = applyApprovalKey(state, key);
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
});
