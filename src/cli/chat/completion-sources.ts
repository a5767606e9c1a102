import { readdir } from "node:fs/promises";
import { resolve } from "node:path";
import type { CompleteResult } from "../../mcp/types.js";
import { currentPromptCommands } from "./chat-input.js";
import type { CompletionSources } from "./completion.js";
import type { AgentSession } from "./session.js";
import { expandHome } from "./home-path.js";
import { builtinCommandList } from "./slash-commands.js";

/** How long a server may take to answer `completion/complete` before Tab shows nothing from it. */
export const COMPLETION_TIMEOUT_MS = 3000;
/** A directory's entries read for path completion. */
const MAX_DIRECTORY_ENTRIES = 2000;

/**
 * Completion from the session: its servers' prompts, resources and templates as they are now,
 * `completion/complete` bounded by a timeout (a server that does not offer completions, or
 * fails, gives no values), tool names from the agent, paths from the file system.
 */
export function sessionCompletionSources(session: AgentSession, cwd = process.cwd()): CompletionSources {
  return {
    builtins: builtinCommandList(),
    promptCommands: () => currentPromptCommands(session),
    completePromptArgument: (prompt, argument, value, context, signal) =>
      values(session.hub.complete({ ref: { type: "ref/prompt", name: prompt.name }, argument: { name: argument, value }, context: { arguments: context } }, prompt.server), signal),
    resources: () => session.hub.resources(),
    resourceTemplates: () => session.hub.resourceTemplates(),
    completeTemplateVariable: (template, variable, value, context, signal) =>
      values(
        session.hub.complete({ ref: { type: "ref/resource", uri: template.uriTemplate }, argument: { name: variable, value }, context: { arguments: context } }, template.server),
        signal,
      ),
    toolNames: () => session.agent.tools().map((tool) => tool.name),
    modelNames: async (signal) => (await withinTimeout(session.listedModels(), signal))?.map((model) => model.id) ?? [],
    skills: () => session.hub.skills(),
    paths: (partial, signal) => completePaths(partial, cwd, signal),
  };
}

/** The values of a completion answer, or none when it fails, is too slow or the user typed on. */
async function values(request: Promise<CompleteResult>, signal: AbortSignal): Promise<string[]> {
  const result = await withinTimeout(request, signal);
  return (result?.completion.values ?? []).filter((value): value is string => typeof value === "string");
}

/** What `request` gives, or undefined when it fails, takes longer than COMPLETION_TIMEOUT_MS or the user typed on. */
async function withinTimeout<T>(request: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const giveUp = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), COMPLETION_TIMEOUT_MS);
    signal.addEventListener("abort", () => resolve(undefined), { once: true });
  });
  try {
    return await Promise.race([request.catch(() => undefined), giveUp]);
  } finally {
    clearTimeout(timer);
  }
}

/** The entries of the typed path's directory whose names start with its last part; directories end with `/`. */
export async function completePaths(partial: string, cwd: string, signal: AbortSignal): Promise<string[]> {
  const slash = partial.lastIndexOf("/");
  const typedDir = slash === -1 ? "" : partial.slice(0, slash + 1);
  const prefix = partial.slice(slash + 1);
  if (signal.aborted) return [];
  let entries: Array<{ name: string; isDirectory(): boolean }>;
  try {
    entries = (await readdir(resolve(cwd, expandHome(typedDir)), { withFileTypes: true })).slice(0, MAX_DIRECTORY_ENTRIES);
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.name.startsWith(prefix) && (prefix.startsWith(".") || !entry.name.startsWith(".")))
    .map((entry) => `${typedDir}${entry.name}${entry.isDirectory() ? "/" : ""}`)
    .sort();
}
