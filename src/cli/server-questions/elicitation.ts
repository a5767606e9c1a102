import type { ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult } from "@modelcontextprotocol/client";
import { openableUrl } from "../../mcp/openable-url.js";
import { launchBrowser } from "../open-browser.js";
import type { Colors } from "../render/colors.js";
import { oneLine } from "../render/one-line.js";
import { cleanTerminalText } from "../render/terminal-text.js";
import { checkValue, formFields, parseTyped, type FieldValue, type FormField } from "../../mcp/elicitation-fields.js";
import type { Prompter, PrompterSlot } from "./prompter.js";

/** Tries per field before the form is given up (cancelled). */
const MAX_TRIES = 3;


/**
 * Elicitation on a terminal: the front end's own dialogs where it has them (the chat's form),
 * else one plain prompt per field, with its title, description, choices and default. With
 * nobody to ask, the request is declined and one line on stderr says so.
 */
export function terminalElicitation(slot: PrompterSlot, colors: Colors, warn: (line: string) => void) {
  return {
    onElicitation: async (request: ElicitRequestFormParams, server: string): Promise<ElicitResult> => {
      if (slot.dialogs) return slot.dialogs.elicitForm(request, server);
      const prompter = slot.current;
      if (!prompter) {
        warn(`server "${server}" asked for input (${oneLine(request.message).slice(0, 120)}); declined: no terminal to ask on`);
        return { action: "decline" };
      }
      return askForm(prompter, request, server, colors);
    },
    onUrlElicitation: async (request: ElicitRequestURLParams, server: string): Promise<ElicitResult> => {
      if (slot.dialogs) return slot.dialogs.elicitUrl(request, server);
      const prompter = slot.current;
      if (!prompter) {
        warn(`server "${server}" asked you to open ${oneLine(request.url)}; declined: no terminal to ask on`);
        return { action: "decline" };
      }
      return askUrl(prompter, request, server, colors, (url) => launchBrowser(url));
    },
  };
}

export async function askForm(prompter: Prompter, request: ElicitRequestFormParams, server: string, c: Colors): Promise<ElicitResult> {
  prompter.write(`\n${c.bold(`server "${oneLine(server)}" asks:`)} ${cleanTerminalText(request.message)}\n`);
  const go = await prompter.question(c.dim("answer? [Y]es, [n]o (decline), [c]ancel: "));
  if (go === undefined || /^c/i.test(go.trim())) return { action: "cancel" };
  if (/^n/i.test(go.trim())) return { action: "decline" };
  const content: Record<string, FieldValue> = {};
  for (const field of formFields(request.requestedSchema, oneLine)) {
    const value = await askField(prompter, field, c);
    if (value === "cancel") return { action: "cancel" };
    if (value !== undefined) content[field.name] = value;
  }
  return { action: "accept", content };
}

async function askField(prompter: Prompter, field: FormField, c: Colors): Promise<FieldValue | undefined | "cancel"> {
  const description = field.description ? ` ${c.dim(field.description)}` : "";
  const { choices } = field;
  if (choices) prompter.write(`${choices.map((choice, i) => `  ${i + 1}. ${choice.label}`).join("\n")}\n`);
  const hint = [field.kind === "multi" ? "numbers, comma-separated" : "", field.default !== undefined ? `default ${JSON.stringify(field.default)}` : "", field.required ? "" : "optional"]
    .filter(Boolean)
    .join(", ");
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const answer = await prompter.question(`${c.bold(field.title)}${field.required ? "*" : ""}${description}${hint ? c.dim(` (${hint})`) : ""}: `);
    if (answer === undefined) return "cancel";
    const text = answer.trim();
    const parsed = text === "" ? field.default : parseAnswer(text, field);
    const error = typeof parsed === "object" && !Array.isArray(parsed) ? parsed.error : checkValue(field, parsed);
    if (error === undefined) return parsed as FieldValue | undefined;
    prompter.write(c.red(`${error}\n`));
  }
  return "cancel";
}

/** A typed answer: a choice by its number, value or label; yes or no; a number; text. */
function parseAnswer(text: string, field: FormField): FieldValue | { error: string } {
  const pick = (item: string): string | undefined => {
    const choices = field.choices ?? [];
    const n = Number(item);
    if (Number.isInteger(n) && n >= 1 && n <= choices.length) return choices[n - 1]?.value;
    return choices.find((choice) => choice.value === item || choice.label === item)?.value;
  };
  switch (field.kind) {
    case "boolean":
      if (/^(y|yes|true|1)$/i.test(text)) return true;
      if (/^(n|no|false|0)$/i.test(text)) return false;
      return { error: "answer yes or no" };
    case "multi": {
      const values = text.split(",").map((item) => pick(item.trim()));
      return values.some((value) => value === undefined) ? { error: "pick from the numbered list" } : (values as string[]);
    }
    case "choice":
      return pick(text) ?? { error: "pick from the numbered list" };
    default:
      return parseTyped(field, text);
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
  // What is shown is what opens: the parsed URL, never a cleaned copy of the server's string.
  const url = openableUrl(request.url);
  if (!url.ok) {
    prompter.write(`${c.yellow(`server "${oneLine(server)}" asked you to open a page; declined: ${url.reason}`)}\n`);
    return { action: "decline" };
  }
  prompter.write(`\n${c.bold(`server "${oneLine(server)}" asks you to open a page:`)} ${cleanTerminalText(request.message)}\n  ${c.cyan(url.href)}\n`);
  const answer = await prompter.question(c.dim("open it in your browser? [y]es, [N]o, [c]ancel: "));
  if (answer === undefined || /^c/i.test(answer.trim())) return { action: "cancel" };
  if (!/^y/i.test(answer.trim())) return { action: "decline" };
  open(url.href);
  return { action: "accept" };
}
