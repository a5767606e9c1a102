import { useEffect, useRef, useState } from "preact/hooks";
import { checkValue, parseTyped, type FieldValue, type FormField } from "../../mcp/elicitation-fields.js";
import type { ServerQuestion, ServerQuestionAnswer } from "../api.js";

type Form = Extract<ServerQuestion, { kind: "form" }>;
type Raw = string | boolean | string[];

const typed = (field: FormField) => field.kind === "text" || field.kind === "number" || field.kind === "integer";

function initial(field: FormField): Raw {
  if (field.kind === "boolean") return field.default === true;
  if (field.kind === "multi") return Array.isArray(field.default) ? field.default : [];
  return field.default === undefined ? "" : String(field.default);
}

/** A field's value as the server receives it, or why it is not one (the terminal's own checks: src/mcp/elicitation-fields). */
function valueOf(field: FormField, raw: Raw): { value: FieldValue | undefined } | { error: string } {
  let value: FieldValue | undefined = raw;
  if (typed(field) || field.kind === "choice") {
    const text = String(raw);
    if (text.trim() === "") value = undefined;
    else if (typed(field)) {
      const parsed = parseTyped(field, text);
      if (typeof parsed === "object" && !Array.isArray(parsed)) return parsed;
      value = parsed;
    }
  }
  const error = checkValue(field, value);
  return error === undefined ? { value } : { error };
}

/** A phone's keyboard for the field's format; the checks are ours (checkValue), not the browser's. */
const INPUT_MODES: Record<string, "email" | "url"> = { email: "email", uri: "url" };

/**
 * A server's form: its message, one labelled control per field (text, number, yes/no, a list,
 * several ticks), checked as the person leaves a field and on Accept, where the first field that
 * does not validate takes the focus. Accept sends the answers; Decline and Cancel (Esc) send none.
 */
export function ElicitationForm({ question, onAnswer }: { question: Form; onAnswer: (answer: ServerQuestionAnswer) => Promise<string | undefined> }) {
  const [values, setValues] = useState<Record<string, Raw>>(() => Object.fromEntries(question.fields.map((field) => [field.name, initial(field)])));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [refused, setRefused] = useState<string>();
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => form.current?.querySelector<HTMLElement>("input, select, button")?.focus({ preventScroll: true }), []);
  const id = (field: FormField) => `q-${question.id}-${field.name}`;

  const set = (field: FormField, raw: Raw) => {
    setValues((before) => ({ ...before, [field.name]: raw }));
    setErrors(({ [field.name]: _cleared, ...rest }) => rest);
  };
  const check = (field: FormField) => {
    const raw = values[field.name] ?? "";
    if (raw === "" || (Array.isArray(raw) && raw.length === 0)) return;
    const checked = valueOf(field, raw);
    if ("error" in checked) setErrors((before) => ({ ...before, [field.name]: checked.error }));
  };
  const send = async (answer: ServerQuestionAnswer) => {
    const problem = await onAnswer(answer);
    if (problem) setRefused(problem);
  };
  const accept = () => {
    const content: Record<string, FieldValue> = {};
    const found: Record<string, string> = {};
    for (const field of question.fields) {
      const checked = valueOf(field, values[field.name] ?? "");
      if ("error" in checked) found[field.name] = checked.error;
      else if (checked.value !== undefined && !(Array.isArray(checked.value) && checked.value.length === 0)) content[field.name] = checked.value;
    }
    setErrors(found);
    const first = question.fields.find((field) => found[field.name] !== undefined);
    if (first) {
      document.getElementById(id(first))?.focus();
      return;
    }
    void send({ action: "accept", content });
  };

  return (
    <form
      ref={form}
      class="approval server-form"
      aria-label={`Question from ${question.server}`}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        accept();
      }}
      onKeyDown={(event) => {
        if (event.key !== "Escape") return;
        event.stopPropagation();
        void send({ action: "cancel" });
      }}
    >
      <p class="approval-title">
        <strong>{question.server}</strong> asks:
      </p>
      {question.message && <p class="question-message">{question.message}</p>}
      {question.fields.map((field) => {
        const error = errors[field.name];
        const describedBy = [field.description ? `${id(field)}-about` : "", error ? `${id(field)}-error` : ""].filter(Boolean).join(" ") || undefined;
        const common = { id: id(field), "aria-invalid": error ? ("true" as const) : undefined, "aria-describedby": describedBy, onBlur: () => check(field) };
        const label = (
          <>
            {field.title}
            {field.required && <span aria-hidden="true"> *</span>}
            {field.required && <span class="visually-hidden"> (required)</span>}
          </>
        );
        const raw = values[field.name];
        let control;
        if (field.kind === "boolean") {
          control = (
            <label class="check">
              <input type="checkbox" {...common} checked={raw === true} onChange={(event) => set(field, (event.target as HTMLInputElement).checked)} /> {label}
            </label>
          );
        } else if (field.kind === "multi") {
          const ticked = Array.isArray(raw) ? raw : [];
          control = (
            <fieldset class="ticks" id={id(field)} aria-invalid={common["aria-invalid"]} aria-describedby={describedBy}>
              <legend>{label}</legend>
              {(field.choices ?? []).map((choice) => (
                <label class="check" key={choice.value}>
                  <input
                    type="checkbox"
                    checked={ticked.includes(choice.value)}
                    onChange={(event) => {
                      const on = (event.target as HTMLInputElement).checked;
                      set(field, (field.choices ?? []).map((c) => c.value).filter((value) => (value === choice.value ? on : ticked.includes(value))));
                    }}
                  />{" "}
                  {choice.label}
                </label>
              ))}
            </fieldset>
          );
        } else if (field.kind === "choice") {
          control = (
            <>
              <label for={id(field)}>{label}</label>
              <select {...common} value={String(raw ?? "")} onChange={(event) => set(field, (event.target as HTMLSelectElement).value)}>
                <option value="">{field.required ? "Choose…" : "(none)"}</option>
                {(field.choices ?? []).map((choice) => (
                  <option key={choice.value} value={choice.value}>
                    {choice.label}
                  </option>
                ))}
              </select>
            </>
          );
        } else {
          const onInput = (event: Event) => set(field, (event.target as HTMLInputElement).value);
          control = (
            <>
              <label for={id(field)}>{label}</label>
              {field.kind === "text" ? (
                <input {...common} type="text" inputMode={INPUT_MODES[field.format ?? ""] ?? "text"} maxLength={field.maxLength} value={String(raw ?? "")} onInput={onInput} />
              ) : (
                <input {...common} type="number" step={field.kind === "integer" ? 1 : "any"} min={field.minimum} max={field.maximum} value={String(raw ?? "")} onInput={onInput} />
              )}
            </>
          );
        }
        return (
          <div class="field" key={field.name}>
            {control}
            {field.description && (
              <p class="field-about" id={`${id(field)}-about`}>
                {field.description}
              </p>
            )}
            {error && (
              <p class="field-error" id={`${id(field)}-error`}>
                {error}
              </p>
            )}
          </div>
        );
      })}
      {refused && (
        <p class="field-error" role="alert">
          {refused}
        </p>
      )}
      <div class="approval-buttons">
        <button type="submit" class="btn primary">
          Accept
        </button>
        <button type="button" class="btn" onClick={() => void send({ action: "decline" })}>
          Decline
        </button>
        <button type="button" class="btn" onClick={() => void send({ action: "cancel" })}>
          Cancel
        </button>
      </div>
    </form>
  );
}
