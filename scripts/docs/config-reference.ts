/**
 * docs/reference/config.md, written from the config's zod schema (src/config/schema.ts): every key, its type and the
 * schema's own description of it, so the page cannot say what the schema does not.
 */
import type { z } from "zod";
import { headingAnchor, tableCell } from "./markdown.js";
import { ConfigSchema, HooksConfigSchema, RemoteServerSchema, StdioServerSchema } from "../../src/config/schema.js";

/** What zod 4 keeps of a schema at run time: the parts this page reads. */
interface Inner {
  def: { type: string; checks?: unknown[]; format?: string; [key: string]: unknown };
}
/** A number's check, as zod 4 records it: `{check: "greater_than", value: 0, inclusive: false}`. */
interface Check {
  _zod: { def: { check: string; value?: number; inclusive?: boolean } };
}
const inner = (schema: z.ZodType): Inner => (schema as unknown as { _zod: Inner })._zod;
const def = (schema: z.ZodType) => inner(schema).def;

/** An object's table is rendered under this heading, with the objects inside it queued after it. */
interface Section {
  /** The heading; a key's path, e.g. `mcpServers.NAME.sampling`. */
  title: string;
  /** The path its keys' own objects are named under. */
  path: string;
  schema: z.ZodType;
  note?: string;
}

/** The sections met so far, by schema: an object used in several places (a server's `sampling`) is listed once. */
type Queue = { sections: Section[]; titles: Map<z.ZodType, string> };

/** Titles of the two forms a server entry takes (a union in the schema). */
const FORMS = new Map<z.ZodType, { label: string; note: string }>([
  [StdioServerSchema, { label: "stdio", note: "a server toolbridge starts (stdio)" }],
  [RemoteServerSchema, { label: "remote", note: "a remote server (Streamable HTTP, SSE or WebSocket)" }],
]);

/** Objects used under several keys, titled once: one hook event's matchers stand for all five. */
const SHARED = new Map<z.ZodType, string>([[def(unwrap(HooksConfigSchema.shape.PreToolUse).schema).element as z.ZodType, "hooks.EVENT[]"]]);

/** Removes optional wrappers, keeping the first description met on the way in. */
function unwrap(schema: z.ZodType): { schema: z.ZodType; description?: string } {
  let at = schema;
  let description = at.description;
  while (def(at).type === "optional" || def(at).type === "default" || def(at).type === "nullable") {
    at = def(at).innerType as z.ZodType;
    description ??= at.description;
  }
  return description === undefined ? { schema: at } : { schema: at, description };
}

function isObject(schema: z.ZodType): boolean {
  return def(schema).type === "object";
}

/** "integer ≥ 1", "number 0–2": the bounds the schema's checks set. */
function range(schema: z.ZodType): string {
  let integer = false;
  let low: string | undefined;
  let high: number | undefined;
  for (const check of (def(schema).checks ?? []) as Check[]) {
    const c = check._zod.def;
    if (c.check === "number_format") integer = true;
    else if (c.check === "greater_than") low = c.inclusive ? `${c.value}` : integer ? `${(c.value ?? 0) + 1}` : `> ${c.value}`;
    else if (c.check === "less_than") high = c.value;
  }
  const name = integer ? "integer" : "number";
  if (low?.startsWith(">") && high !== undefined) return `${name} ${low}, ≤ ${high}`;
  if (low !== undefined && high !== undefined) return `${name} ${low}–${high}`;
  if (low !== undefined) return low.startsWith(">") ? `${name} ${low}` : `${name} ≥ ${low}`;
  return high === undefined ? name : `${name} ≤ ${high}`;
}

/** The type column: short, in the words of JSON; an object names the section that lists its keys. */
function typeOf(schema: z.ZodType, path: string, queue: Queue, suffix = ""): string {
  const { schema: at } = unwrap(schema);
  const d = def(at);
  switch (d.type) {
    case "string":
      return d.format === "url" ? "URL" : "string";
    case "number":
      return range(at);
    case "boolean":
      return "boolean";
    case "unknown":
    case "any":
      return "any";
    case "literal":
      return (d.values as unknown[]).map((value) => `\`${JSON.stringify(value)}\``).join(" or ");
    case "enum":
      return Object.values(d.entries as Record<string, string>)
        .map((value) => `\`${JSON.stringify(value)}\``)
        .join(", ");
    case "array":
      return `list of ${typeOf(d.element as z.ZodType, `${path}[]`, queue)}`;
    case "record":
      return `object of ${typeOf(d.valueType as z.ZodType, `${path}.NAME`, queue)}`;
    case "union":
      return (d.options as z.ZodType[])
        .map((option) => typeOf(option, path, queue, FORMS.has(option) || !isObject(unwrap(option).schema) ? "" : " (object)"))
        .filter((text, index, all) => all.indexOf(text) === index)
        .join(" or ");
    case "object": {
      let title = queue.titles.get(at);
      if (title === undefined) {
        const form = FORMS.get(at);
        const shared = SHARED.get(at);
        const named = shared ?? path;
        title = form ? `${named} (${form.label})` : `${named}${suffix}`;
        queue.titles.set(at, title);
        queue.sections.push({ title, path: named, schema: at, ...(form ? { note: form.note } : {}) });
      }
      return `object ([below](#${headingAnchor(`\`${title}\``)}))`;
    }
    default:
      return d.type;
  }
}

/** A section's table, then the sections of the objects its keys hold, each right after its parent. */
function render(section: Section, queue: Queue): string[] {
  const shape = def(section.schema).shape as Record<string, z.ZodType>;
  const lines = [section.title === "" ? "## The top level" : `### \`${section.title}\``, ""];
  if (section.note) lines.push(`The keys of ${section.note}.`, "");
  lines.push("| key | type | what it does |", "| --- | --- | --- |");
  const children: Section[] = [];
  for (const [key, value] of Object.entries(shape)) {
    const before = queue.sections.length;
    const type = typeOf(value, section.path === "" ? key : `${section.path}.${key}`, queue);
    children.push(...queue.sections.splice(before));
    const required = def(value).type === "optional" ? "" : " (required)";
    lines.push(`| \`${key}\`${required} | ${tableCell(type)} | ${tableCell(unwrap(value).description ?? "")} |`);
  }
  lines.push("");
  for (const child of children) lines.push(...render(child, queue));
  return lines;
}

export function configReference(): string {
  const lines = [
    "# Configuration reference",
    "",
    "<!-- Generated by scripts/gen-docs.ts from src/config/schema.ts: edit the schema's descriptions, then run `npm run docs`. -->",
    "",
    "Every key the config file (`toolbridge.json`, or `~/.config/toolbridge/config.json`) takes, as the schema in",
    "[src/config/schema.ts](../../src/config/schema.ts) defines it. What the keys do together, with examples, is in",
    "[Configuration](../configuration.md). Keys other hosts write that toolbridge has no use for are accepted in a",
    "server's entry and at the top level, and a key that looks misspelt is warned about.",
    "",
    ...render({ title: "", path: "", schema: ConfigSchema }, { sections: [], titles: new Map() }),
  ];
  return `${lines.join("\n").trimEnd()}\n`;
}
