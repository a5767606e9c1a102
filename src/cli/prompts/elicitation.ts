import { spawn } from "node:child_process";
import type { ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { Colors } from "../render/colors.js";
import { oneLine } from "../render/one-line.js";
import { cleanTerminalText } from "../render/terminal-text.js";
import type { Prompter, PrompterSlot } from "./prompter.js";

/** Tries per field before the form is given up (cancelled). */
const MAX_TRIES = 3;

type Value = string | number | boolean | string[];
type FieldSchema = ElicitRequestFormParams["requestedSchema"]["properties"][string];
interface Choice {
  value: string;
  label: string;
}

/**
 * Elicitation on a terminal until the chat's form exists: one plain prompt per field, with
 * its title, description, choices and default. With nobody to ask, the request is declined
 * and one line on stderr says so.
 */
export function terminalElicitation(slot: PrompterSlot, colors: Colors, warn: (line: string) => void) {
  return {
    onElicitation: async (request: ElicitRequestFormParams, server: string): Promise<ElicitResult> => {
      const prompter = slot.current;
      if (!prompter) {
        warn(`server "${server}" asked for input (${oneLine(request.message).slice(0, 120)}); declined: no terminal to ask on`);
        return { action: "decline" };
      }
      return askForm(prompter, request, server, colors);
    },
    onUrlElicitation: async (request: ElicitRequestURLParams, server: string): Promise<ElicitResult> => {
      const prompter = slot.current;
      if (!prompter) {
        warn(`server "${server}" asked you to open ${oneLine(request.url)}; declined: no terminal to ask on`);
        return { action: "decline" };
      }
      return askUrl(prompter, request, server, colors, openInBrowser);
    },
  };
}

export async function askForm(prompter: Prompter, request: ElicitRequestFormParams, server: string, c: Colors): Promise<ElicitResult> {
  prompter.write(`\n${c.bold(`server "${oneLine(server)}" asks:`)} ${cleanTerminalText(request.message)}\n`);
  const go = await prompter.question(c.dim("answer? [Y]es, [n]o (decline), [c]ancel: "));
  if (go === undefined || /^c/i.test(go.trim())) return { action: "cancel" };
  if (/^n/i.test(go.trim())) return { action: "decline" };
  const schema = request.requestedSchema;
  const required = new Set(schema.required ?? []);
  const content: Record<string, Value> = {};
  for (const [name, field] of Object.entries(schema.properties)) {
    const value = await askField(prompter, name, field, required.has(name), c);
    if (value === "cancel") return { action: "cancel" };
    if (value !== undefined) content[name] = value;
  }
  return { action: "accept", content };
}

async function askField(prompter: Prompter, name: string, field: FieldSchema, required: boolean, c: Colors): Promise<Value | undefined | "cancel"> {
  const title = oneLine(("title" in field && field.title) || name);
  const description = "description" in field && field.description ? ` ${c.dim(oneLine(field.description))}` : "";
  const choices = choicesOf(field);
  if (choices) prompter.write(`${choices.map((choice, i) => `  ${i + 1}. ${choice.label}`).join("\n")}\n`);
  const fallback = "default" in field && field.default !== undefined ? field.default : undefined;
  const hint = [field.type === "array" ? "numbers, comma-separated" : "", fallback !== undefined ? `default ${JSON.stringify(fallback)}` : "", required ? "" : "optional"]
    .filter(Boolean)
    .join(", ");
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const answer = await prompter.question(`${c.bold(title)}${required ? "*" : ""}${description}${hint ? c.dim(` (${hint})`) : ""}: `);
    if (answer === undefined) return "cancel";
    const text = answer.trim();
    if (text === "") {
      if (fallback !== undefined) return fallback as Value;
      if (!required) return undefined;
      prompter.write(c.red("an answer is needed\n"));
      continue;
    }
    const parsed = parseAnswer(text, field, choices);
    if (typeof parsed === "object" && parsed !== null && "error" in parsed) {
      prompter.write(c.red(`${parsed.error}\n`));
      continue;
    }
    return parsed;
  }
  return "cancel";
}

function choicesOf(field: FieldSchema): Choice[] | undefined {
  const record = field as Record<string, unknown>;
  const source = field.type === "array" ? ((record.items ?? {}) as Record<string, unknown>) : record;
  if (Array.isArray(source.enum)) {
    const names = Array.isArray(record.enumNames) ? (record.enumNames as string[]) : [];
    return (source.enum as string[]).map((value, i) => ({ value, label: oneLine(names[i] ?? value) }));
  }
  const options = (source.oneOf ?? source.anyOf) as { const: string; title?: string }[] | undefined;
  return Array.isArray(options) ? options.map((o) => ({ value: o.const, label: oneLine(o.title ?? o.const) })) : undefined;
}

function parseAnswer(text: string, field: FieldSchema, choices: Choice[] | undefined): Value | { error: string } {
  const pick = (item: string): string | undefined => {
    if (!choices) return item;
    const n = Number(item);
    if (Number.isInteger(n) && n >= 1 && n <= choices.length) return choices[n - 1]?.value;
    return choices.find((choice) => choice.value === item || choice.label === item)?.value;
  };
  switch (field.type) {
    case "boolean":
      if (/^(y|yes|true|1)$/i.test(text)) return true;
      if (/^(n|no|false|0)$/i.test(text)) return false;
      return { error: "answer yes or no" };
    case "number":
    case "integer": {
      const n = Number(text);
      if (!Number.isFinite(n) || (field.type === "integer" && !Number.isInteger(n))) return { error: `expected ${field.type === "integer" ? "a whole number" : "a number"}` };
      if (field.minimum !== undefined && n < field.minimum) return { error: `at least ${field.minimum}` };
      if (field.maximum !== undefined && n > field.maximum) return { error: `at most ${field.maximum}` };
      return n;
    }
    case "array": {
      const values = text.split(",").map((item) => pick(item.trim()));
      if (values.some((value) => value === undefined)) return { error: "pick from the numbered list" };
      return values as string[];
    }
    default: {
      const value = pick(text);
      if (value === undefined) return { error: "pick from the numbered list" };
      const record = field as { minLength?: number; maxLength?: number };
      if (record.minLength !== undefined && value.length < record.minLength) return { error: `at least ${record.minLength} characters` };
      if (record.maxLength !== undefined && value.length > record.maxLength) return { error: `at most ${record.maxLength} characters` };
      return value;
    }
  }
}

/** Shows the URL and who asks; opens it only when the person says yes. */
export async function askUrl(
  prompter: Prompter,
  request: ElicitRequestURLParams,
  server: string,
  c: Colors,
  open: (url: string) => void,
): Promise<ElicitResult> {
  const url = oneLine(request.url);
  prompter.write(`\n${c.bold(`server "${oneLine(server)}" asks you to open a page:`)} ${cleanTerminalText(request.message)}\n  ${c.cyan(url)}\n`);
  const answer = await prompter.question(c.dim("open it in your browser? [y]es, [N]o, [c]ancel: "));
  if (answer === undefined || /^c/i.test(answer.trim())) return { action: "cancel" };
  if (!/^y/i.test(answer.trim())) return { action: "decline" };
  if (/^https?:\/\//i.test(url)) open(url);
  return { action: "accept" };
}

/** The desktop's opener, detached; nothing waits on it and nothing of its output reaches the terminal. */
function openInBrowser(url: string): void {
  const command = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  try {
    const child = spawn(command, [url], { detached: true, stdio: "ignore" });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // No opener: the URL is on screen to copy.
  }
}
