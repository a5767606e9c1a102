import { locateJsonSyntaxError } from "../config/json-syntax.js";
import type { HubPrompt } from "../mcp/types.js";
import { UsageError } from "./errors.js";

/**
 * Parses a JSON_ARGS argument (`'{"format":"iso"}'`) into an object; a mistake is one
 * line naming the column, since shell quoting makes these easy to get wrong.
 */
export function parseJsonArgs(text: string | undefined, label = "JSON_ARGS"): Record<string, unknown> {
  if (text === undefined || text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const { line, column, reason } = locateJsonSyntaxError(text);
    const at = line > 1 ? `line ${line}, column ${column}` : `column ${column}`;
    throw new UsageError(`${label} is not valid JSON at ${at}: ${reason} (got ${JSON.stringify(text)})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`${label} must be a JSON object such as '{"name": "value"}', got ${Array.isArray(value) ? "an array" : JSON.stringify(value)}`);
  }
  return value as Record<string, unknown>;
}

/** Prompt arguments are strings in MCP; numbers and booleans are taken as their text. */
export function promptArguments(args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(args)) {
    if (typeof value === "string") out[key] = value;
    else if (typeof value === "number" || typeof value === "boolean") out[key] = String(value);
    else throw new UsageError(`prompt argument "${key}" must be a string, got ${value === null ? "null" : Array.isArray(value) ? "an array" : "an object"}`);
  }
  return out;
}

/**
 * A prompt's required arguments are checked against its own argument list before the
 * server is asked, so a missing one is explained with the list and an example.
 */
export function checkPromptArguments(prompt: HubPrompt, args: Record<string, string>, example: (prompt: HubPrompt) => string = commandLineExample): void {
  const declared = prompt.arguments ?? [];
  const missing = declared.filter((argument) => argument.required === true && !(argument.name in args));
  if (missing.length === 0) return;
  const list = declared.map((argument) => `${argument.name}${argument.required ? "*" : ""}${argument.description ? ` (${argument.description.trim()})` : ""}`).join(", ");
  const names = missing.map((argument) => `"${argument.name}"`).join(", ");
  throw new UsageError(
    `prompt "${prompt.name}" needs the argument${missing.length > 1 ? "s" : ""} ${names}; its arguments (* required): ${list}; e.g. ${example(prompt)}`,
  );
}

/** `toolbridge prompt NAME '{"city": "..."}'` */
function commandLineExample(prompt: HubPrompt): string {
  const required = (prompt.arguments ?? []).filter((argument) => argument.required);
  return `toolbridge prompt ${prompt.name} '${JSON.stringify(Object.fromEntries(required.map((argument) => [argument.name, "..."])))}'`;
}
