import type { GetPromptResult } from "@modelcontextprotocol/client";
import { blockToPart } from "../../agent/tool-result.js";
import { partText } from "../../llm/content-part.js";
import type { ContentPart, Message } from "../../llm/types.js";
import type { HubPrompt } from "../../mcp/types.js";
import { UsageError } from "../errors.js";
import { checkPromptArguments } from "../json-args.js";
import type { Colors } from "../render/colors.js";
import { oneLine } from "../render/one-line.js";

/**
 * Servers' prompts as slash commands. A prompt is `/NAME` when one server offers that name
 * and no built-in command has it; `/SERVER:NAME` always works, and is the only name of a
 * prompt two servers offer or a built-in shadows. (Claude Code always qualifies,
 * `/mcp__server__prompt`; Gemini CLI uses the bare name; this keeps the short name where it
 * is unambiguous.) A name's spaces become `-`, so every command is one word.
 */
export interface PromptCommand {
  /** Without the slash. */
  name: string;
  prompt: HubPrompt;
}

export function promptCommands(prompts: readonly HubPrompt[], builtins: readonly string[]): PromptCommand[] {
  const owners = new Map<string, number>();
  for (const prompt of prompts) owners.set(commandWord(prompt.name), (owners.get(commandWord(prompt.name)) ?? 0) + 1);
  return prompts.map((prompt) => {
    const word = commandWord(prompt.name);
    const short = owners.get(word) === 1 && !builtins.includes(word);
    return { name: short ? word : qualifiedName(prompt), prompt };
  });
}

/** The command a line names, by its listed name or its `SERVER:NAME` form. */
export function findPromptCommand(commands: readonly PromptCommand[], name: string): PromptCommand | undefined {
  return commands.find((command) => command.name === name) ?? commands.find((command) => qualifiedName(command.prompt) === name);
}

function qualifiedName(prompt: HubPrompt): string {
  return `${commandWord(prompt.server)}:${commandWord(prompt.name)}`;
}

function commandWord(name: string): string {
  return name.trim().replace(/\s+/g, "-");
}

/** A word of a command line: its value (quotes removed) and where it stands in the line. */
export interface Token {
  value: string;
  start: number;
  end: number;
}

/** Splits on whitespace; "double" or 'single' quotes keep spaces in a word (`city="New York"`). An unclosed quote runs to the end. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < text.length) {
    while (index < text.length && /\s/.test(text[index]!)) index += 1;
    if (index >= text.length) break;
    const start = index;
    let value = "";
    while (index < text.length && !/\s/.test(text[index]!)) {
      const quote = text[index]!;
      if (quote === '"' || quote === "'") {
        const close = text.indexOf(quote, index + 1);
        const stop = close === -1 ? text.length : close;
        value += text.slice(index + 1, stop);
        index = close === -1 ? text.length : close + 1;
      } else {
        value += quote;
        index += 1;
      }
    }
    tokens.push({ value, start, end: index });
  }
  return tokens;
}

/** `name=value` where `name` is one of the prompt's arguments. */
export function namedArgument(prompt: HubPrompt, word: string): { name: string; value: string } | undefined {
  const equals = word.indexOf("=");
  if (equals <= 0) return undefined;
  const name = word.slice(0, equals);
  return (prompt.arguments ?? []).some((argument) => argument.name === name) ? { name, value: word.slice(equals + 1) } : undefined;
}

/**
 * What the words after a prompt command give each argument: `name=value` names one; the
 * other words fill the arguments not named, in the prompt's order, and the last of them
 * takes the rest of the line (`/summarize this whole sentence`).
 */
export function assignArguments(prompt: HubPrompt, words: readonly string[]): { args: Record<string, string>; extra: string[] } {
  const args: Record<string, string> = {};
  const positional: string[] = [];
  for (const word of words) {
    const named = namedArgument(prompt, word);
    if (named) args[named.name] = named.value;
    else positional.push(word);
  }
  const open = (prompt.arguments ?? []).filter((argument) => !(argument.name in args));
  open.forEach((argument, index) => {
    if (index >= positional.length) return;
    args[argument.name] = index === open.length - 1 ? positional.slice(index).join(" ") : positional[index]!;
  });
  return { args, extra: open.length === 0 ? positional : [] };
}

/** The arguments typed after a prompt command, checked against the prompt's own argument list. */
export function parsePromptArguments(command: PromptCommand, text: string): Record<string, string> {
  const { args, extra } = assignArguments(command.prompt, tokenize(text).map((token) => token.value));
  if (extra.length > 0) {
    const declared = command.prompt.arguments ?? [];
    throw new UsageError(
      declared.length === 0
        ? `/${command.name} takes no arguments (got ${JSON.stringify(extra.join(" "))})`
        : `/${command.name}: every argument is named already; ${JSON.stringify(extra.join(" "))} is left over`,
    );
  }
  checkPromptArguments(command.prompt, args, () => usage(command));
  return args;
}

/** `/time-in <city> [timezone]` */
export function usage(command: PromptCommand): string {
  const args = (command.prompt.arguments ?? []).map((argument) => (argument.required ? `<${argument.name}>` : `[${argument.name}]`));
  return [`/${command.name}`, ...args].join(" ");
}

/**
 * A prompt's messages as a turn: every message but the last user message goes into the
 * conversation first, the last user message is what is sent (null when the prompt ends
 * with the assistant's words, which the model then continues from).
 */
export function promptTurn(result: GetPromptResult): { before: Message[]; input: string | ContentPart[] | null } {
  const messages: Message[] = [];
  for (const message of result.messages) {
    const part = blockToPart(message.content);
    const last = messages.at(-1);
    if (message.role === "user") {
      // Adjacent user messages become one, as some providers want the roles to alternate.
      if (last?.role === "user") messages[messages.length - 1] = { role: "user", content: joinParts([...asParts(last.content), part]) };
      else messages.push({ role: "user", content: joinParts([part]) });
    } else {
      const text = partText(part);
      if (last?.role === "assistant") messages[messages.length - 1] = { role: "assistant", content: `${last.content}\n\n${text}` };
      else messages.push({ role: "assistant", content: text });
    }
  }
  if (messages.length === 0) throw new UsageError("the prompt has no messages");
  const last = messages.at(-1)!;
  if (last.role !== "user") return { before: messages, input: null };
  return { before: messages.slice(0, -1), input: last.content };
}

function asParts(content: string | ContentPart[]): ContentPart[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

function joinParts(parts: ContentPart[]): string | ContentPart[] {
  if (parts.every((part) => part.type === "text")) return parts.map((part) => (part as { text: string }).text).join("\n\n");
  return parts;
}

/** The prompt commands for /help. */
export function renderPromptCommands(commands: readonly PromptCommand[], colors: Colors): string {
  if (commands.length === 0) return colors.dim("  no server offers prompts");
  const usages = commands.map((command) => oneLine(usage(command)));
  const width = Math.max(...usages.map((text) => text.length));
  return commands
    .map((command, index) => {
      const about = oneLine(command.prompt.description ?? command.prompt.title ?? "");
      return `  ${colors.bold(usages[index]!.padEnd(width))}  ${about}${about ? " " : ""}${colors.dim(`(${oneLine(command.prompt.server)})`)}`;
    })
    .join("\n");
}
