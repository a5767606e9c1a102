import type { HubPrompt, HubResourceTemplate } from "../../mcp/types.js";
import { assignArguments, findPromptCommand, namedArgument, tokenize, type PromptCommand } from "./prompt-commands.js";

/**
 * Tab completion in the chat's input, without the screen: what the word at the cursor can
 * become. Slash commands (built-in and servers' prompts), a prompt's arguments (asked of the
 * server through `completion/complete`, with the arguments before as context), `@` resource
 * URIs (the servers' resource lists, and their URI templates with the variables completed by
 * the server), tool names after `/tools`, model names after `/model`, skills (with their summaries) after `/skills`, and paths after `/load`, `/save` and `/roots add`.
 */

/** One choice: the text that replaces the word, and how the list shows it. */
export interface Candidate {
  insert: string;
  label: string;
  detail?: string;
}

/** The word from `from` to `to` (the cursor) can be replaced by any of `candidates`. */
export interface Completion {
  from: number;
  to: number;
  candidates: Candidate[];
}

/** Where candidates come from; the session's (completion-sources.ts) asks the servers with a timeout. */
export interface CompletionSources {
  /** Built-in commands, by name without the slash. */
  builtins: ReadonlyArray<{ name: string; help: string }>;
  promptCommands(): Promise<PromptCommand[]>;
  /** `completion/complete` for a prompt argument; [] when the server offers none. */
  completePromptArgument(prompt: HubPrompt, argument: string, value: string, context: Record<string, string>, signal: AbortSignal): Promise<string[]>;
  resources(): Promise<Array<{ uri: string; name?: string }>>;
  resourceTemplates(): Promise<HubResourceTemplate[]>;
  /** `completion/complete` for a URI template's variable; [] when the server offers none. */
  completeTemplateVariable(template: HubResourceTemplate, variable: string, value: string, context: Record<string, string>, signal: AbortSignal): Promise<string[]>;
  toolNames(): string[];
  /** The models the model server lists, for `/model`; [] when it lists none, fails or is too slow. */
  modelNames(signal: AbortSignal): Promise<string[]>;
  /** The skills servers offer (SEP-2640), as listed. */
  skills(): ReadonlyArray<{ name: string; server: string; description: string }>;
  /** Paths that start with `partial` (a directory's entries end with `/`). */
  paths(partial: string, signal: AbortSignal): Promise<string[]>;
}

/** The most candidates a list holds. */
export const MAX_CANDIDATES = 50;
/** The most `completion/complete` requests one Tab sends for resource templates. */
export const MAX_TEMPLATE_REQUESTS = 8;
/** The longest candidate put into the input. */
export const MAX_CANDIDATE_CHARS = 2000;

const PATH_COMMANDS = new Set(["load", "save"]);

export async function complete(text: string, cursor: number, sources: CompletionSources, signal: AbortSignal): Promise<Completion | undefined> {
  const before = text.slice(0, cursor);
  const word = /\S*$/.exec(before)![0];
  if (word.startsWith("@")) return bounded(cursor - word.length, cursor, await completeMention(word.slice(1), sources, signal));
  const line = /^\s*\/(\S*)(\s+[\s\S]*)?$/.exec(before);
  if (!line) return undefined;
  const name = line[1]!;
  if (line[2] === undefined) return bounded(cursor - word.length, cursor, await completeCommand(name, sources));
  const rest = line[2];
  const words = tokenize(rest);
  // The word at the cursor (quotes and all) is the last one, unless a space follows it.
  const last = words.at(-1);
  const touching = last !== undefined && last.end === rest.length;
  const earlier = (touching ? words.slice(0, -1) : words).map((token) => token.value);
  const current = touching ? last.value : "";
  const from = touching ? cursor - rest.length + last.start : cursor;
  if (name === "tools" && earlier.length === 0) return bounded(from, cursor, byPrefix(sources.toolNames(), current).map((tool) => ({ insert: `${tool} `, label: tool })));
  if (name === "model" && earlier.length === 0) return bounded(from, cursor, byPrefix(await sources.modelNames(signal), current).map((model) => ({ insert: `${model} `, label: model })));
  if (name === "skills" && earlier.length === 0) return bounded(from, cursor, skillCandidates(sources.skills(), current));
  if (PATH_COMMANDS.has(name) && earlier.length === 0) return bounded(from, cursor, await completePath(current, sources, signal));
  if (name === "roots") {
    if (earlier.length === 0) return bounded(from, cursor, byPrefix(["add", "remove"], current).map((verb) => ({ insert: `${verb} `, label: verb })));
    if (earlier.length === 1 && (earlier[0] === "add" || earlier[0] === "remove")) return bounded(from, cursor, await completePath(current, sources, signal));
    return undefined;
  }
  const command = findPromptCommand(await sources.promptCommands(), name);
  if (!command) return undefined;
  return bounded(from, cursor, await completeArgument(command.prompt, earlier, current, sources, signal));
}

/** A skill by its name, or `SERVER:NAME` where two servers offer that name (what /skills NAME reads). */
function skillCandidates(skills: ReadonlyArray<{ name: string; server: string; description: string }>, current: string): Candidate[] {
  const owners = new Map<string, number>();
  for (const skill of skills) owners.set(skill.name, (owners.get(skill.name) ?? 0) + 1);
  const named = skills.map((skill) => ({ skill, word: owners.get(skill.name) === 1 ? skill.name : `${skill.server}:${skill.name}` }));
  return named.filter(({ word }) => word.startsWith(current)).map(({ skill, word }) => ({ insert: `${word} `, label: word, detail: skill.description }));
}

async function completeCommand(partial: string, sources: CompletionSources): Promise<Candidate[]> {
  const builtins = sources.builtins.map((command) => ({ name: command.name, detail: command.help }));
  const prompts = (await sources.promptCommands()).map((command) => ({ name: command.name, detail: command.prompt.description ?? command.prompt.title ?? `prompt of ${command.prompt.server}` }));
  return [...builtins, ...prompts].filter((command) => command.name.startsWith(partial)).map((command) => ({ insert: `/${command.name} `, label: `/${command.name}`, detail: command.detail }));
}

/** The value of the argument being typed: `name=` names it, else it is the next argument not given yet. */
async function completeArgument(prompt: HubPrompt, earlier: string[], current: string, sources: CompletionSources, signal: AbortSignal): Promise<Candidate[]> {
  const { args: context } = assignArguments(prompt, earlier);
  const named = namedArgument(prompt, current);
  const declared = prompt.arguments ?? [];
  const target = named?.name ?? declared.find((argument) => !(argument.name in context))?.name;
  if (target === undefined) return [];
  const value = named ? named.value : current;
  delete context[target];
  const values = await sources.completePromptArgument(prompt, target, value, context, signal);
  const prefix = named ? `${target}=` : "";
  return values.map((candidate) => ({ insert: `${prefix}${quoteWord(candidate)} `, label: candidate, detail: target }));
}

async function completeMention(partial: string, sources: CompletionSources, signal: AbortSignal): Promise<Candidate[]> {
  const [resources, templates] = await Promise.all([sources.resources(), sources.resourceTemplates()]);
  const listed = resources
    .filter((resource) => resource.uri.startsWith(partial))
    .map((resource) => ({ insert: `@${resource.uri} `, label: resource.uri, ...(resource.name && resource.name !== resource.uri ? { detail: resource.name } : {}) }));
  const budget = { requests: MAX_TEMPLATE_REQUESTS };
  const fromTemplates = await Promise.all(templates.map((template) => completeTemplate(template, partial, sources, signal, budget)));
  return dedupe([...listed, ...fromTemplates.flat()]);
}

type Segment = { literal: string } | { variable: string };

/** `file:///{path}` as literals and variables; undefined for an expression other than a plain `{name}` (RFC 6570 operators). */
export function templateSegments(uriTemplate: string): Segment[] | undefined {
  const segments: Segment[] = [];
  for (const [index, piece] of uriTemplate.split(/\{([^}]*)\}/).entries()) {
    if (index % 2 === 0) {
      if (piece !== "") segments.push({ literal: piece });
    } else if (/^[A-Za-z0-9_]+$/.test(piece)) segments.push({ variable: piece });
    else return undefined;
  }
  return segments;
}

/**
 * What a template offers for the typed part of a URI: the literal text up to its next
 * variable, or the server's values for the variable being typed (the ones before it as context).
 */
async function completeTemplate(
  template: HubResourceTemplate,
  partial: string,
  sources: CompletionSources,
  signal: AbortSignal,
  budget: { requests: number },
): Promise<Candidate[]> {
  const segments = templateSegments(template.uriTemplate);
  if (!segments) return [];
  const context: Record<string, string> = {};
  let position = 0;
  for (const [index, segment] of segments.entries()) {
    const rest = partial.slice(position);
    if ("literal" in segment) {
      if (rest.startsWith(segment.literal)) {
        position += segment.literal.length;
        continue;
      }
      if (!segment.literal.startsWith(rest)) return [];
      const upTo = partial + segment.literal.slice(rest.length);
      return [{ insert: `@${upTo}`, label: template.uriTemplate, detail: template.name }];
    }
    const next = segments[index + 1];
    const end = next && "literal" in next ? variableEnd(rest, next.literal) : -1;
    if (end >= 0) {
      context[segment.variable] = rest.slice(0, end);
      position += end;
      continue;
    }
    if (budget.requests <= 0) return [];
    budget.requests -= 1;
    const values = await sources.completeTemplateVariable(template, segment.variable, rest, context, signal);
    const last = index === segments.length - 1;
    return values.map((value) => ({ insert: `@${partial.slice(0, position)}${value}${last ? " " : ""}`, label: `${partial.slice(0, position)}${value}`, detail: segment.variable }));
  }
  return [];
}

/** Where a variable's value ends: at the literal after it, or where the rest of the text is the start of that literal. */
function variableEnd(rest: string, literal: string): number {
  const whole = rest.indexOf(literal);
  if (whole >= 0) return whole;
  const started = rest.indexOf(literal[0]!);
  return started >= 0 && literal.startsWith(rest.slice(started)) ? started : -1;
}

async function completePath(partial: string, sources: CompletionSources, signal: AbortSignal): Promise<Candidate[]> {
  return (await sources.paths(partial, signal)).map((path) => ({ insert: path.endsWith("/") ? quoteWord(path) : `${quoteWord(path)} `, label: path }));
}

function byPrefix(names: readonly string[], partial: string): string[] {
  return names.filter((name) => name.startsWith(partial));
}

/** A value with spaces or quotes is quoted, so it stays one word. */
function quoteWord(value: string): string {
  if (!/[\s"']/.test(value)) return value;
  return value.includes('"') ? `'${value}'` : `"${value}"`;
}

function dedupe(candidates: Candidate[]): Candidate[] {
  const seen = new Set<string>();
  return candidates.filter((candidate) => !seen.has(candidate.insert) && seen.add(candidate.insert));
}

/**
 * At most MAX_CANDIDATES, each short enough to type. A value with a control character (a
 * server's newline or escape sequence) is left out: it would not be one word of the input.
 */
function bounded(from: number, to: number, candidates: Candidate[]): Completion | undefined {
  const usable = candidates.filter((candidate) => candidate.insert.length <= MAX_CANDIDATE_CHARS && !/[\u0000-\u001f\u007f-\u009f]/.test(candidate.insert));
  return usable.length === 0 ? undefined : { from, to, candidates: usable.slice(0, MAX_CANDIDATES) };
}
