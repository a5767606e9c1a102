import { InvalidArgumentError, type Command } from "commander";
import type { Hub } from "../../mcp/hub.js";
import type { ResolvedConfig } from "../../config/load.js";
import type { ServerConfig } from "../../config/schema.js";
import { HubError } from "../../mcp/errors.js";
import type { ClientHandlers, Progress } from "../../mcp/types.js";
import type { CallFlags } from "../call-client.js";
import { action, ReportedFailure, UsageError } from "../errors.js";
import { renderToolDetail } from "../render/tool-detail.js";
import { checkPromptArguments, parseJsonArgs, promptArguments } from "../json-args.js";
import type { OpenedHub, OpenHubOptions } from "../open-hub.js";
import { colorsFor } from "../render/colors.js";
import { cleanTerminalText, terminalSafeJson } from "../render/terminal-text.js";
import { ProgressThrottle } from "../render/progress-throttle.js";
import { renderPromptMessages, renderResourceContents, renderToolResult } from "../render/content.js";
import {
  renderPrompts,
  renderResources,
  renderResourceTemplates,
  renderServers,
  renderSkills,
  renderTools,
  type ListingOptions,
} from "../render/listings.js";
import { renderTask, renderTasks } from "../render/tasks.js";
import { configSource } from "../render/config-source.js";
import { startupStatus } from "../render/startup-status.js";
import { sanitizeName } from "../../mcp/tool-names.js";

/**
 * The hub, and the MCP client under it, load when a command runs: `serve` and `--help` start
 * without them. Unless the command brings its own, servers' questions are answered as `call`
 * answers them, so every command declares what `run` and `chat` declare (sampling,
 * elicitation): a server may list a tool only to a client that can answer it, and `tools`
 * must list what the model is offered.
 */
async function withHub<T>(options: OpenHubOptions, work: (opened: OpenedHub) => Promise<T>): Promise<T> {
  const { withHub: open } = await import("../open-hub.js");
  return open({ ...options, handlers: options.handlers ?? callHandlersOnUse }, work);
}

/** `call`'s handlers, loaded when a server first asks: a listing declares them without loading the model's code and the prompts. */
function callHandlersOnUse(config: ResolvedConfig): Required<ClientHandlers> {
  let loading: Promise<Required<ClientHandlers>> | undefined;
  const load = () =>
    (loading ??= Promise.all([import("../call-client.js"), import("../server-questions/prompter.js")]).then(
      ([{ callClientHandlers }, { PrompterSlot, terminalPrompter }]) => callClientHandlers({}, process.env, new PrompterSlot(terminalPrompter(process.stdin, process.stderr)))(config),
    ));
  return {
    onSampling: async (...args) => (await load()).onSampling(...args),
    onElicitation: async (...args) => (await load()).onElicitation(...args),
    onUrlElicitation: async (...args) => (await load()).onUrlElicitation(...args),
  };
}

interface ConfigOption {
  config?: string;
  /** `--root DIR`, repeatable. */
  root?: string[];
}
interface JsonOption {
  json?: boolean;
}
interface ServerOption {
  server?: string;
}

const CONFIG_HELP = "config file (default: ./toolbridge.json, then ~/.config/toolbridge/config.json, else the bundled time and math servers)";

/** Every hub command reads --config and --root and can print its result as --json. */
function hubCommand(program: Command, name: string, description: string, json: string): Command {
  return program.command(name).description(description).option("-c, --config <file>", CONFIG_HELP).option("--json", json).option(...ROOT_OPTION);
}

/** `--root DIR`, repeatable: what servers are offered as roots (default: the config's, else the current directory). */
export const ROOT_OPTION = [
  "--root <dir>",
  "a directory servers may work in (repeatable; default: the config's roots, else the current directory)",
  (value: string, previous: string[] = []) => [...previous, value],
] as const;

/** What every hub command passes to openHub; on a terminal, each server's start-up shows on stderr as it happens. */
function hubOptions(options: ConfigOption, only?: string): OpenHubOptions {
  return { config: options.config, onHubEvent: startupStatus(process.stderr, process.env), ...(only !== undefined ? { only } : {}), ...(options.root ? { roots: options.root } : {}) };
}

/** Whether a lookup found its tool; an ambiguous name counts as found (more servers cannot make it less so). */
function isFound(lookup: () => unknown): boolean {
  try {
    return lookup() !== undefined;
  } catch {
    return true;
  }
}

/** The configured server a qualified name (`server__tool`) names, if any: the only one `call` then starts. */
function serverOfQualifiedName(tool: string, names: readonly string[]): string | undefined {
  const matching = names.filter((name) => tool.startsWith(`${name}__`) || tool.startsWith(`${sanitizeName(name)}__`));
  // "a__b__c" names server "a__b" before server "a".
  return matching.sort((a, b) => b.length - a.length)[0];
}

function listing(): ListingOptions {
  const options: ListingOptions = { colors: colorsFor(process.stdout, process.env) };
  if (process.stdout.isTTY && process.stdout.columns) options.maxWidth = process.stdout.columns;
  return options;
}

function printJson(value: unknown): void {
  process.stdout.write(`${terminalSafeJson(value, 2)}\n`);
}

/** A list as JSON, as a table, or (when empty) as a note on stderr. */
function printList<T>(items: readonly T[], options: JsonOption, nothing: string, render: (items: readonly T[], listing: ListingOptions) => string): void {
  if (options.json) return printJson(items);
  if (items.length === 0) return note(nothing);
  process.stdout.write(render(items, listing()));
}

/** `tools NAME`: one tool in full. */
async function showTool(hub: Hub, name: string, options: JsonOption): Promise<void> {
  // Loaded on use: it brings the JSON Schema validator, which no other listing needs.
  const { findTool } = await import("../tool-lookup.js");
  const tool = findTool(hub.tools(), name);
  if (!tool) throw new UsageError(`unknown tool "${name}"; \`toolbridge tools\` lists them`);
  if (options.json) return printJson(tool);
  process.stdout.write(renderToolDetail(tool, colorsFor(process.stdout, process.env), listing().maxWidth));
}

/** With servers configured and not one of them up, a listing lies by being empty: exit 1. */
function failIfAllFailed(hub: Hub): void {
  const enabled = hub.servers().filter((state) => state.status !== "disabled");
  if (enabled.length > 0 && enabled.every((state) => state.status === "failed")) throw new ReportedFailure();
}

/** A dim note on stderr, so that stdout stays empty for a script when there is nothing to list. */
function note(text: string): void {
  process.stderr.write(`${colorsFor(process.stderr, process.env).dim(text)}\n`);
}

function parseTimeout(value: string): number {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms <= 0) throw new InvalidArgumentError("Expected a whole number of milliseconds greater than 0.");
  return ms;
}

/** On a terminal, one line on stderr rewritten by progress notifications (at most once a second). */
function progressLine(): { update: (progress: Progress) => void; clear: () => void } {
  if (!process.stderr.isTTY) return { update: () => {}, clear: () => {} };
  const c = colorsFor(process.stderr, process.env);
  let shown = false;
  const throttle = new ProgressThrottle();
  return {
    update: (p) => {
      if (!throttle.shouldShow("call")) return;
      const amount = p.total !== undefined ? `${p.progress}/${p.total}` : String(p.progress);
      process.stderr.write(`\r\x1b[2K${c.dim(cleanTerminalText(`progress ${amount}${p.message ? ` ${p.message}` : ""}`))}`);
      shown = true;
    },
    clear: () => {
      if (shown) process.stderr.write("\r\x1b[2K");
    },
  };
}

export function registerHubCommands(program: Command): void {
  hubCommand(program, "servers", "connect to every configured server and show how each one is doing", "print the server states as JSON")
    .action(
      action(async (options: ConfigOption & JsonOption) => {
        // The table shows failures itself.
        await withHub({ ...hubOptions(options), warnFailures: false }, async ({ hub, configPath }) => {
          printList(hub.servers(), options, "no servers configured", renderServers);
          if (!options.json) note(configSource(configPath));
          failIfAllFailed(hub);
        });
      }),
    );

  hubCommand(program, "tools", "list the tools of every server, under the names a model sees; with NAME, show that tool's arguments", "print the tools, with their schemas, as JSON")
    .argument("[name]", "one tool to show in full (its exposed name, server__tool, or the server's own name)")
    .option("-s, --server <name>", "only this server's tools")
    .action(
      action(async (name: string | undefined, options: ConfigOption & JsonOption & ServerOption) => {
        await withHub(hubOptions(options, options.server), async ({ hub }) => {
          if (name !== undefined) return showTool(hub, name, options);
          printList(hub.tools(), options, "no tools", renderTools);
          failIfAllFailed(hub);
        });
      }),
    );

  hubCommand(program, "call", "call a tool and print its result; exits 1 when the tool reports an error", "print the whole result as JSON")
    .argument("<tool>", "tool name, plain or qualified as server__tool")
    .argument("[json-args]", `arguments as one JSON object, e.g. '{"format": "iso"}'`)
    .option("--timeout <ms>", "give up after this many milliseconds without progress", parseTimeout)
    .option("--approve <mode>", "whether a server may use the model (sampling) without asking: ask, readonly (same as ask), all")
    .option("--base-url <url>", "the model server's OpenAI-compatible base URL, for servers that ask to use the model")
    .option("--model <name>", "the model servers' sampling requests use (default: the config's)")
    .option("--provider <name>", "openai-compatible, vllm, ollama, openai, anthropic, gemini or local")
    .action(
      action(async (tool: string, jsonArgs: string | undefined, options: ConfigOption & JsonOption & CallFlags & { timeout?: number }) => {
        const args = parseJsonArgs(jsonArgs);
        const { callClientHandlers } = await import("../call-client.js");
        const { PrompterSlot, terminalPrompter } = await import("../server-questions/prompter.js");
        const slot = new PrompterSlot(terminalPrompter(process.stdin, process.stderr));
        const { ToolOwners } = await import("../../host/tool-owners.js");
        const { checkArguments, findTool } = await import("../tool-lookup.js");
        const owners = ToolOwners.open(process.env);
        // `server__tool` starts that server alone; a plain name, the servers that may offer it (see ToolOwners).
        // Returns false when the servers the index chose do not offer the name after all: every server is then started.
        const callWith = (everyServer: boolean): Promise<boolean> => {
          let guessed = false;
          let configured: { servers: Readonly<Record<string, ServerConfig>>; path: string | undefined } | undefined;
          const status = startupStatus(process.stderr, process.env);
          const open: OpenHubOptions = {
            ...hubOptions(options),
            onHubEvent: status,
            handlers: callClientHandlers(options, process.env, slot),
            serversFor: (servers, configPath) => {
              configured = { servers, path: configPath };
              const qualified = serverOfQualifiedName(tool, Object.keys(servers));
              if (qualified !== undefined) return [qualified];
              const some = everyServer ? undefined : owners?.mayOffer(configPath, servers, tool);
              guessed = some !== undefined;
              return some;
            },
            // Called as soon as a server up offers the name and no server still starting may offer it too:
            // one that failed to start last time is not waited for (its startup timeout, on every call).
            enoughWhen: (hub) => {
              const starting = hub.servers().filter((server) => server.status === "connecting");
              if (!owners || !configured || !isFound(() => findTool(hub.tools(), tool))) return false;
              const { servers, path } = configured;
              return starting.every((server) => !owners.mustAwait(path, servers, server.name, tool));
            },
          };
          return withHub(open, async ({ hub, signal }) => {
            // The start-up line ends here, servers still starting or not.
            status.end();
            // Found here, the arguments are checked first; a name not found is left to the hub, which lists the tools.
            const found = findTool(hub.tools(), tool);
            if (!found && guessed) return false;
            if (found) checkArguments(found, args);
            const progress = progressLine();
            const result = await hub
              .callTool(found?.name ?? tool, args, { signal, onProgress: progress.update, ...(options.timeout ? { timeoutMs: options.timeout } : {}) })
              // A name no server offers is the caller's mistake, as `tools NAME` says: exit 2, with the tools there are.
              // With a server down (failed, or waiting on a login) the tool may be its: that stays a failure, exit 1.
              .catch((error: unknown) => {
                const everyServerUp = hub.servers().every((server) => server.status === "connected" || server.status === "disabled");
                throw error instanceof HubError && error.code === "unknown-tool" && everyServerUp ? new UsageError(error.message) : error;
              })
              .finally(progress.clear);
            if (options.json) printJson(result);
            else if (result.isError) {
              const c = colorsFor(process.stderr, process.env);
              process.stderr.write(`${c.red("toolbridge:")} tool "${cleanTerminalText(tool)}" reported an error:\n${renderToolResult(result, c)}`);
            } else process.stdout.write(renderToolResult(result, colorsFor(process.stdout, process.env)));
            if (result.isError) throw new ReportedFailure();
            return true;
          });
        };
        if (!(await callWith(false))) await callWith(true);
      }),
    );

  hubCommand(program, "tasks", "list the tasks servers run (those they list, and task-backed calls in flight)", "print the tasks as JSON")
    .option("-s, --server <name>", "only this server's tasks")
    .action(
      action(async (options: ConfigOption & JsonOption & ServerOption) => {
        await withHub(hubOptions(options, options.server), async ({ hub }) => {
          printList(await hub.tasks(), options, "no tasks", renderTasks);
        });
      }),
    );

  hubCommand(program, "task", "show one task: its status, message and times", "print the task as JSON")
    .argument("<id>", "the task id")
    .option("-s, --server <name>", "start and ask only this server")
    .action(
      action(async (id: string, options: ConfigOption & JsonOption & ServerOption) => {
        await withHub(hubOptions(options, options.server), async ({ hub }) => {
          const task = await hub.task(id, options.server);
          if (options.json) return printJson(task);
          process.stdout.write(renderTask(task, listing()));
        });
      }),
    );

  hubCommand(program, "resources", "list the resources and resource templates of every server", "print resources and templates as JSON")
    .option("-s, --server <name>", "only this server's resources")
    .action(
      action(async (options: ConfigOption & JsonOption & ServerOption) => {
        await withHub(hubOptions(options, options.server), async ({ hub }) => {
          const [resources, templates] = await Promise.all([hub.resources(), hub.resourceTemplates()]);
          if (options.json) printJson({ resources, resourceTemplates: templates });
          else if (resources.length === 0 && templates.length === 0) note("no resources");
          else {
            const parts: string[] = [];
            if (resources.length > 0) parts.push(renderResources(resources, listing()));
            if (templates.length > 0) parts.push(renderResourceTemplates(templates, listing()));
            process.stdout.write(parts.join("\n"));
          }
          failIfAllFailed(hub);
        });
      }),
    );

  hubCommand(program, "read", "read a resource (a listed URI, or one matching a server's URI template)", "print the contents as JSON (blobs base64-encoded)")
    .argument("<uri>", "resource URI")
    .option("-s, --server <name>", "start and ask only this server")
    .action(
      action(async (uri: string, options: ConfigOption & JsonOption & ServerOption) => {
        await withHub(hubOptions(options, options.server), async ({ hub }) => {
          const result = await hub.readResource(uri, options.server);
          if (options.json) return printJson(result);
          process.stdout.write(renderResourceContents(result, colorsFor(process.stdout, process.env)));
        });
      }),
    );

  hubCommand(program, "prompts", "list the prompts of every server (* marks a required argument)", "print the prompts as JSON")
    .action(
      action(async (options: ConfigOption & JsonOption) => {
        await withHub(hubOptions(options), async ({ hub }) => {
          printList(await hub.prompts(), options, "no prompts", renderPrompts);
          failIfAllFailed(hub);
        });
      }),
    );

  hubCommand(program, "skills", "list the skills servers offer (SEP-2640); with NAME, load that skill's SKILL.md, verified, and print it", "print the skills, or the loaded skill, as JSON")
    .argument("[name]", "one skill to load and print")
    .option("-s, --server <name>", "only this server's skills")
    .option("--file <path>", "with NAME: another file of the skill, by its path in the skill")
    .action(
      action(async (name: string | undefined, options: ConfigOption & JsonOption & ServerOption & { file?: string }) => {
        await withHub(hubOptions(options, options.server), async ({ hub, signal }) => {
          if (name === undefined) {
            printList(hub.skills(), options, "no skills", renderSkills);
            return failIfAllFailed(hub);
          }
          const loaded = await hub.loadSkill(name, { signal, ...(options.server !== undefined ? { server: options.server } : {}), ...(options.file !== undefined ? { file: options.file } : {}) });
          if (options.json) return printJson(loaded);
          process.stdout.write(`${cleanTerminalText(loaded.text)}${loaded.text.endsWith("\n") ? "" : "\n"}`);
        });
      }),
    );

  hubCommand(program, "prompt", "get a prompt with its arguments filled in and print its messages", "print the prompt result as JSON")
    .argument("<name>", "prompt name")
    .argument("[json-args]", `arguments as one JSON object of strings, e.g. '{"city": "Taipei"}'`)
    .option("-s, --server <name>", "start and ask only this server")
    .action(
      action(async (name: string, jsonArgs: string | undefined, options: ConfigOption & JsonOption & ServerOption) => {
        const args = promptArguments(parseJsonArgs(jsonArgs));
        await withHub(hubOptions(options, options.server), async ({ hub }) => {
          const offered = (await hub.prompts()).filter((prompt) => prompt.name === name && (options.server === undefined || prompt.server === options.server));
          // One offer is checked here; none or several are the hub's to explain.
          if (offered.length === 1) checkPromptArguments(offered[0]!, args);
          const result = await hub.getPrompt(name, args, options.server);
          if (options.json) return printJson(result);
          process.stdout.write(renderPromptMessages(result, colorsFor(process.stdout, process.env)));
        });
      }),
    );
}
