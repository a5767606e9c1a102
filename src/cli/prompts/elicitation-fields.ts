import type { ElicitRequestFormParams } from "@modelcontextprotocol/client";
import { oneLine } from "../render/one-line.js";

/** A value a form field can hold, as the server receives it. */
export type FieldValue = string | number | boolean | string[];

export interface Choice {
  value: string;
  label: string;
}

/**
 * One field of an elicitation form, read from the server's `requestedSchema`: what to ask
 * (title and description already cleaned to one line), what kind of answer, and its bounds.
 */
export interface FormField {
  name: string;
  title: string;
  description?: string;
  required: boolean;
  kind: "text" | "number" | "integer" | "boolean" | "choice" | "multi";
  choices?: Choice[];
  default?: FieldValue;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
}

type Schema = ElicitRequestFormParams["requestedSchema"];
type Loose = Record<string, unknown>;

/** Bounds a hostile schema cannot stretch: fields per form, choices per field. */
const MAX_FIELDS = 50;
const MAX_CHOICES = 200;

const num = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

/** The fields of a form, in the schema's order (at most 50). */
export function formFields(schema: Schema): FormField[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties)
    .slice(0, MAX_FIELDS)
    .map(([name, property]) => {
      const p = property as Loose;
      const choices = choicesOf(p);
      const kind: FormField["kind"] =
        p.type === "array" ? "multi" : choices ? "choice" : p.type === "boolean" ? "boolean" : p.type === "number" || p.type === "integer" ? p.type : "text";
      const field: FormField = { name, title: oneLine(typeof p.title === "string" && p.title ? p.title : name), required: required.has(name), kind };
      if (typeof p.description === "string" && p.description) field.description = oneLine(p.description);
      if (choices) field.choices = choices;
      if (typeof p.format === "string") field.format = p.format;
      const bounds = { minimum: num(p.minimum), maximum: num(p.maximum), minLength: num(p.minLength), maxLength: num(p.maxLength), minItems: num(p.minItems), maxItems: num(p.maxItems) };
      for (const [key, value] of Object.entries(bounds)) if (value !== undefined) field[key as keyof typeof bounds] = value;
      const fallback = p.default;
      if (fallback !== undefined && checkValue(field, fallback as FieldValue) === undefined) field.default = fallback as FieldValue;
      return field;
    });
}

function choicesOf(property: Loose): Choice[] | undefined {
  const source = property.type === "array" ? ((property.items ?? {}) as Loose) : property;
  if (Array.isArray(source.enum)) {
    const names = Array.isArray(property.enumNames) ? property.enumNames : [];
    return source.enum.slice(0, MAX_CHOICES).map((value, i) => ({ value: String(value), label: oneLine(String(names[i] ?? value)) }));
  }
  const options = source.oneOf ?? source.anyOf;
  if (!Array.isArray(options)) return undefined;
  return (options as Loose[])
    .filter((option) => typeof option.const === "string")
    .slice(0, MAX_CHOICES)
    .map((option) => ({ value: option.const as string, label: oneLine(typeof option.title === "string" ? option.title : (option.const as string)) }));
}

/** What a typed answer means for a text, number or integer field, or why it is not one. */
export function parseTyped(field: FormField, text: string): FieldValue | { error: string } {
  if (field.kind === "number" || field.kind === "integer") {
    const n = Number(text.trim());
    if (text.trim() === "" || !Number.isFinite(n) || (field.kind === "integer" && !Number.isInteger(n))) {
      return { error: `expected ${field.kind === "integer" ? "a whole number" : "a number"}` };
    }
    return n;
  }
  return text;
}

const FORMATS: Record<string, { test: (value: string) => boolean; name: string }> = {
  email: { test: (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v), name: "an email address" },
  uri: { test: (v) => URL.canParse(v), name: "a URL (https://…)" },
  date: { test: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)), name: "a date (YYYY-MM-DD)" },
  "date-time": { test: (v) => /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)), name: "a date and time (YYYY-MM-DDTHH:MM:SSZ)" },
};

/** Why `value` does not fit the field (undefined: it fits). An absent value only fails a required field. */
export function checkValue(field: FormField, value: FieldValue | undefined): string | undefined {
  if (value === undefined || value === "" || (Array.isArray(value) && value.length === 0)) {
    return field.required ? "an answer is needed" : undefined;
  }
  switch (field.kind) {
    case "boolean":
      return typeof value === "boolean" ? undefined : "answer yes or no";
    case "number":
    case "integer":
      if (typeof value !== "number" || (field.kind === "integer" && !Number.isInteger(value))) return `expected ${field.kind === "integer" ? "a whole number" : "a number"}`;
      if (field.minimum !== undefined && value < field.minimum) return `at least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `at most ${field.maximum}`;
      return undefined;
    case "multi": {
      if (!Array.isArray(value) || value.some((item) => !field.choices?.some((choice) => choice.value === item))) return "pick from the list";
      if (field.minItems !== undefined && value.length < field.minItems) return `pick at least ${field.minItems}`;
      if (field.maxItems !== undefined && value.length > field.maxItems) return `pick at most ${field.maxItems}`;
      return undefined;
    }
    case "choice":
      return typeof value === "string" && field.choices?.some((choice) => choice.value === value) ? undefined : "pick from the list";
    case "text": {
      if (typeof value !== "string") return "expected text";
      if (field.minLength !== undefined && value.length < field.minLength) return `at least ${field.minLength} characters`;
      if (field.maxLength !== undefined && value.length > field.maxLength) return `at most ${field.maxLength} characters`;
      const format = field.format === undefined ? undefined : FORMATS[field.format];
      if (format && !format.test(value)) return `expected ${format.name}`;
      return undefined;
    }
  }
}
