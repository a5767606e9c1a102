import type { ElicitResult } from "@modelcontextprotocol/client";
import { checkValue, parseTyped, type FieldValue, type FormField } from "../prompts/elicitation-fields.js";
import * as edit from "./input-buffer.js";
import type { InputBuffer } from "./input-buffer.js";
import type { Key, Paste } from "./keys.js";

/** The buttons after the fields, in order. */
export const FORM_BUTTONS = [
  { label: "Accept", action: "accept" },
  { label: "Decline", action: "decline" },
  { label: "Cancel", action: "cancel" },
] as const;

/**
 * A server's form being filled in: which field (or button, after the fields) has the focus,
 * the text typed into text and number fields, the values of the others, the highlighted
 * option of each list, and the message under each field that does not validate.
 */
export interface FormState {
  readonly fields: readonly FormField[];
  readonly focus: number;
  readonly text: Readonly<Record<string, InputBuffer>>;
  readonly values: Readonly<Record<string, FieldValue | undefined>>;
  readonly cursor: Readonly<Record<string, number>>;
  readonly errors: Readonly<Record<string, string>>;
}

const typed = (field: FormField): boolean => field.kind === "text" || field.kind === "number" || field.kind === "integer";

/** A form with the server's defaults filled in (a boolean without one starts as no). */
export function initialForm(fields: readonly FormField[]): FormState {
  const text: Record<string, InputBuffer> = {};
  const values: Record<string, FieldValue | undefined> = {};
  const cursor: Record<string, number> = {};
  for (const field of fields) {
    if (typed(field)) text[field.name] = edit.bufferOf(field.default === undefined ? "" : String(field.default));
    else if (field.kind === "boolean") values[field.name] = field.default ?? false;
    else values[field.name] = field.default ?? (field.kind === "multi" ? [] : undefined);
    if (field.choices) cursor[field.name] = Math.max(0, field.choices.findIndex((choice) => choice.value === (Array.isArray(field.default) ? field.default[0] : field.default)));
  }
  return { fields, focus: 0, text, values, cursor, errors: {} };
}

/** A field's current value (typed text parsed), or why it is not a valid one. */
function valueOf(state: FormState, field: FormField): { value: FieldValue | undefined } | { error: string } {
  let value = state.values[field.name];
  if (typed(field)) {
    const text = state.text[field.name]?.text ?? "";
    if (text.trim() === "") value = undefined;
    else {
      const parsed = parseTyped(field, text);
      if (typeof parsed === "object" && !Array.isArray(parsed)) return parsed;
      value = parsed;
    }
  }
  const error = checkValue(field, value);
  return error === undefined ? { value } : { error };
}

function isEmpty(state: FormState, field: FormField): boolean {
  if (typed(field)) return (state.text[field.name]?.text ?? "").trim() === "";
  const value = state.values[field.name];
  return value === undefined || (Array.isArray(value) && value.length === 0);
}

function withError(state: FormState, field: FormField | undefined): Record<string, string> {
  if (!field) return { ...state.errors };
  const checked = valueOf(state, field);
  const { [field.name]: _old, ...rest } = state.errors;
  return "error" in checked ? { ...rest, [field.name]: checked.error } : rest;
}

/**
 * Moves the focus, checking the field it leaves if it holds something (its message shows until
 * it is fixed); an empty required field is flagged only on Accept, not on the way past.
 */
function move(state: FormState, by: number): FormState {
  const stops = state.fields.length + FORM_BUTTONS.length;
  const leaving = state.fields[state.focus];
  const empty = leaving !== undefined && isEmpty(state, leaving);
  return { ...state, errors: empty ? state.errors : withError(state, leaving), focus: (state.focus + by + stops) % stops };
}

/** Accept: every field checked; the first that fails takes the focus, else the answers go to the server. */
function accept(state: FormState): { state: FormState; result?: ElicitResult } {
  const content: Record<string, FieldValue> = {};
  const errors: Record<string, string> = {};
  for (const field of state.fields) {
    const checked = valueOf(state, field);
    if ("error" in checked) errors[field.name] = checked.error;
    else if (checked.value !== undefined && !(Array.isArray(checked.value) && checked.value.length === 0)) content[field.name] = checked.value;
  }
  const first = state.fields.findIndex((field) => errors[field.name] !== undefined);
  if (first !== -1) return { state: { ...state, errors, focus: first } };
  return { state: { ...state, errors }, result: { action: "accept", content } };
}

/**
 * One key in the form. Tab / ↓ and Shift+Tab / ↑ move between fields and buttons, Enter
 * moves on from a field or presses a button; in a text or number field keys edit; in a list
 * ←/→ move, Space picks (one) or ticks (several); Space, y and n set a yes/no field.
 * Esc (or Ctrl-C) cancels the form.
 */
export function applyFormKey(state: FormState, key: Key | Paste): { state: FormState; result?: ElicitResult } {
  if (key.kind === "escape" || (key.kind === "ctrl" && key.letter === "c")) return { state, result: { action: "cancel" } };
  if (key.kind === "tab") return { state: move(state, key.shift ? -1 : 1) };
  if (key.kind === "down") return { state: move(state, 1) };
  if (key.kind === "up") return { state: move(state, -1) };
  const field = state.fields[state.focus];
  if (!field) {
    const button = FORM_BUTTONS[state.focus - state.fields.length];
    if (key.kind === "left" || key.kind === "right") return { state: move(state, key.kind === "left" ? -1 : 1) };
    if (key.kind !== "enter" || !button) return { state };
    return button.action === "accept" ? accept(state) : { state, result: { action: button.action } };
  }
  if (key.kind === "enter") return { state: move(state, 1) };
  const { [field.name]: _cleared, ...errors } = state.errors;
  if (typed(field)) {
    const buffer = editText(state.text[field.name] ?? edit.EMPTY_BUFFER, key);
    return buffer ? { state: { ...state, errors, text: { ...state.text, [field.name]: buffer } } } : { state };
  }
  const set = (value: FieldValue | undefined, cursor = state.cursor[field.name] ?? 0): { state: FormState } => ({
    state: { ...state, errors, values: { ...state.values, [field.name]: value }, cursor: { ...state.cursor, [field.name]: cursor } },
  });
  const current = state.values[field.name];
  const space = key.kind === "text" && key.text === " ";
  if (field.kind === "boolean") {
    if (space || key.kind === "left" || key.kind === "right") return set(!(current === true));
    if (key.kind === "text" && /^[yn]$/i.test(key.text)) return set(key.text.toLowerCase() === "y");
    return { state };
  }
  const choices = field.choices ?? [];
  const at = state.cursor[field.name] ?? 0;
  if ((key.kind === "left" || key.kind === "right") && choices.length > 0) {
    const next = (at + (key.kind === "left" ? -1 : 1) + choices.length) % choices.length;
    // A single choice follows the highlight; a multiple one only moves it.
    return field.kind === "choice" ? set(choices[next]?.value, next) : set(current, next);
  }
  if (space && choices[at]) {
    const value = choices[at].value;
    if (field.kind === "choice") return set(value);
    const ticked = Array.isArray(current) ? current : [];
    return set(ticked.includes(value) ? ticked.filter((item) => item !== value) : choices.filter((choice) => choice.value === value || ticked.includes(choice.value)).map((c) => c.value));
  }
  return { state };
}

/** Editing keys in a one-line text field; undefined for keys that do not edit. */
function editText(buffer: InputBuffer, key: Key | Paste): InputBuffer | undefined {
  switch (key.kind) {
    case "text":
    case "paste":
      return edit.insert(buffer, key.text.replace(/[\r\n]+/g, " "));
    case "backspace":
      return edit.backspace(buffer);
    case "delete":
      return edit.deleteForward(buffer);
    case "left":
      return edit.left(buffer);
    case "right":
      return edit.right(buffer);
    case "home":
      return edit.home(buffer);
    case "end":
      return edit.end(buffer);
    case "ctrl":
      if (key.letter === "u") return edit.deleteToLineStart(buffer);
      if (key.letter === "k") return edit.deleteToLineEnd(buffer);
      if (key.letter === "w") return edit.deleteWordBefore(buffer);
      return undefined;
    default:
      return undefined;
  }
}
