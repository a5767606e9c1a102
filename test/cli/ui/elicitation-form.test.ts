import type { ElicitRequestFormParams } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { checkValue, formFields } from "../../../src/cli/prompts/elicitation-fields.js";
import { applyFormKey, initialForm, type FormState } from "../../../src/cli/ui/elicitation-form.js";
import type { Key, Paste } from "../../../src/cli/ui/keys.js";

const schema: ElicitRequestFormParams["requestedSchema"] = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name\x1b[8m", minLength: 2, maxLength: 5 },
    email: { type: "string", format: "email" },
    age: { type: "integer", minimum: 0, maximum: 150, default: 30 },
    ok: { type: "boolean" },
    color: { type: "string", oneOf: [{ const: "r", title: "Red" }, { const: "g", title: "Green" }], default: "g" },
    pets: { type: "array", items: { type: "string", enum: ["cat", "dog", "eel"] }, minItems: 1, maxItems: 2, default: ["dog"] },
  },
  required: ["name"],
};

const text = (t: string): Key => ({ kind: "text", text: t });
const k = (kind: "enter" | "escape" | "left" | "right" | "up" | "down" | "backspace"): Key => (kind === "enter" ? { kind, shift: false } : { kind });
const tab: Key = { kind: "tab", shift: false };

function press(state: FormState, ...keys: (Key | Paste)[]) {
  let current = state;
  let result;
  for (const key of keys) {
    const step = applyFormKey(current, key);
    current = step.state;
    result = step.result;
  }
  return { state: current, result };
}

describe("fields from a requested schema", () => {
  it("reads kinds, bounds, choices and valid defaults, with titles cleaned", () => {
    const fields = formFields(schema);
    expect(fields.map((f) => [f.name, f.kind])).toEqual([
      ["name", "text"],
      ["email", "text"],
      ["age", "integer"],
      ["ok", "boolean"],
      ["color", "choice"],
      ["pets", "multi"],
    ]);
    expect(fields[0]).toMatchObject({ title: "Name", required: true, minLength: 2, maxLength: 5 });
    expect(fields[4]?.choices).toEqual([
      { value: "r", label: "Red" },
      { value: "g", label: "Green" },
    ]);
    expect(fields[5]).toMatchObject({ default: ["dog"], minItems: 1, maxItems: 2 });
  });

  it("drops a default that does not fit its own field", () => {
    const [field] = formFields({ type: "object", properties: { n: { type: "integer", minimum: 5, default: 1 } } });
    expect(field?.default).toBeUndefined();
  });

  it("checks formats, lengths, ranges and picks", () => {
    const [name, email, age, , color, pets] = formFields(schema);
    expect(checkValue(name!, "A")).toBe("at least 2 characters");
    expect(checkValue(name!, "Adalbert")).toBe("at most 5 characters");
    expect(checkValue(name!, undefined)).toBe("an answer is needed");
    expect(checkValue(email!, undefined)).toBeUndefined();
    expect(checkValue(email!, "nope")).toBe("expected an email address");
    expect(checkValue(email!, "a@b.io")).toBeUndefined();
    expect(checkValue(age!, 151)).toBe("at most 150");
    expect(checkValue(age!, 1.5)).toBe("expected a whole number");
    expect(checkValue(color!, "x")).toBe("pick from the list");
    expect(checkValue(pets!, ["cat", "dog", "eel"])).toBe("pick at most 2");
  });

  it("bounds a hostile schema's fields and choices", () => {
    const properties = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`f${i}`, { type: "string" as const, enum: Array.from({ length: 500 }, (_, j) => `v${j}`) }]));
    const fields = formFields({ type: "object", properties });
    expect(fields).toHaveLength(50);
    expect(fields[0]?.choices).toHaveLength(200);
  });
});

describe("the form's keys", () => {
  const start = () => initialForm(formFields(schema));

  it("starts with the defaults filled in and a boolean as no", () => {
    const state = start();
    expect(state.text.age?.text).toBe("30");
    expect(state.values).toMatchObject({ ok: false, color: "g", pets: ["dog"] });
  });

  it("accepts with typed text, toggles, picks and ticks", () => {
    let { state } = press(start(), text("Ada"), tab, tab, tab, text(" "), tab, k("left"), tab, k("right"), text(" "));
    expect(state.values).toMatchObject({ ok: true, color: "r", pets: ["dog", "eel"] });
    // From the last field: Tab to Accept, Enter.
    const done = press(state, tab, k("enter"));
    expect(done.result).toEqual({ action: "accept", content: { name: "Ada", age: 30, ok: true, color: "r", pets: ["dog", "eel"] } });
    state = done.state;
    expect(state.errors).toEqual({});
  });

  it("shows a field's message when the focus leaves it, and clears it when the field is edited", () => {
    let { state } = press(start(), text("A"), tab);
    expect(state.errors).toEqual({ name: "at least 2 characters" });
    ({ state } = press(state, k("up"), text("b")));
    expect(state.errors).toEqual({});
  });

  it("refuses to accept while a field fails, and moves the focus to it", () => {
    const { state, result } = press(start(), tab, text("bad"), { kind: "tab", shift: true }, k("up"), k("up"), k("up"), k("enter"));
    // Up from name wraps to the buttons: Cancel, Decline, then Accept.
    expect(result).toBeUndefined();
    expect(state.focus).toBe(0);
    expect(state.errors).toEqual({ name: "an answer is needed", email: "expected an email address" });
  });

  it("checks typed numbers", () => {
    const { state } = press(start(), tab, tab, k("backspace"), k("backspace"), text("x"), tab);
    // The empty name is not flagged on the way past, only on Accept.
    expect(state.errors).toEqual({ age: "expected a whole number" });
  });

  it("keeps a paste on one line", () => {
    const { state } = press(start(), { kind: "paste", text: "Ad\na", cut: false });
    expect(state.text.name?.text).toBe("Ad a");
  });

  it("declines from the Decline button and cancels on Esc or Ctrl-C", () => {
    const buttons = formFields(schema).length;
    let state = start();
    for (let i = 0; i <= buttons; i++) state = applyFormKey(state, tab).state;
    expect(applyFormKey(state, k("enter")).result).toEqual({ action: "decline" });
    expect(applyFormKey(start(), k("escape")).result).toEqual({ action: "cancel" });
    expect(applyFormKey(start(), { kind: "ctrl", letter: "c" }).result).toEqual({ action: "cancel" });
  });
});
