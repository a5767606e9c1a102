import type { HubTool } from "../../mcp/types.js";
import type { Colors } from "./colors.js";
import { renderTable } from "./table.js";
import { cleanTerminalText as clean } from "./terminal-text.js";

type Schema = Record<string, unknown>;

/**
 * One tool as a person reads it (`toolbridge tools NAME`): its names, its whole
 * description, a table of its arguments (* required) with type, default and description,
 * and what its annotations promise. The schema as it is comes with --json.
 */
export function renderToolDetail(tool: HubTool, c: Colors, maxWidth?: number): string {
  const lines: string[] = [];
  const names = [`server ${tool.server}`, tool.originalName !== tool.name ? `server's name ${tool.originalName}` : ""].filter(Boolean).join(", ");
  lines.push(`${c.bold(clean(tool.name))} ${c.dim(`(${clean(names)})`)}`);
  if (tool.title) lines.push(clean(tool.title));
  if (tool.description) lines.push("", clean(tool.description.trim()));
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(tool.inputSchema.required) ? (tool.inputSchema.required as string[]) : []);
  const rows = Object.entries(properties).map(([name, schema]) => ({ name, schema }));
  lines.push("");
  if (rows.length === 0) lines.push(c.dim("no arguments"));
  else {
    const table = renderTable(
      [
        { header: "ARGUMENT", value: (row) => `${row.name}${required.has(row.name) ? "*" : ""}`, color: (text) => c.bold(text) },
        { header: "TYPE", value: (row) => typeOf(row.schema) },
        { header: "DEFAULT", value: (row) => (row.schema.default === undefined ? "" : JSON.stringify(row.schema.default)) },
        { header: "DESCRIPTION", value: (row) => String(row.schema.description ?? ""), shrink: true },
      ],
      rows,
      { colors: c, ...(maxWidth !== undefined ? { maxWidth } : {}) },
    );
    lines.push(table.trimEnd());
  }
  const hints = annotationsOf(tool);
  if (hints.length > 0) lines.push("", c.dim(hints.join(", ")));
  return `${lines.join("\n")}\n`;
}

/** `string`, `"a" | "b"`, `number[]`, `integer 1..10`, `object`, or the union of `anyOf`. */
function typeOf(schema: Schema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(union)) return union.map(typeOf).join(" | ");
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : String(schema.type ?? "any");
  if (type === "array" && schema.items && typeof schema.items === "object") return `${typeOf(schema.items as Schema)}[]`;
  const range = [schema.minimum, schema.maximum].some((bound) => bound !== undefined) ? ` ${schema.minimum ?? ""}..${schema.maximum ?? ""}` : "";
  return `${type}${range}`;
}

function annotationsOf(tool: HubTool): string[] {
  const a = tool.annotations ?? {};
  return [
    a.readOnlyHint === true ? "read-only" : "",
    a.destructiveHint === true ? "destructive" : "",
    a.idempotentHint === true ? "idempotent" : "",
    a.openWorldHint === true ? "reaches outside (open world)" : "",
  ].filter(Boolean);
}
