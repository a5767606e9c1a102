import { InvalidArgumentError, type Command } from "commander";
import type { Progress } from "../../mcp/types.js";
import { action, ReportedFailure } from "../errors.js";
import { parseJsonArgs, promptArguments } from "../json-args.js";
import type { OpenedHub, OpenHubOptions } from "../open-hub.js";
import { colorsFor } from "../render/colors.js";
import { renderPromptMessages, renderResourceContents, renderToolResult } from "../render/content.js";
import {
  renderPrompts,
  renderResources,
  renderResourceTemplates,
  renderServers,
  renderTools,
  type ListingOptions,
} from "../render/listings.js";

/** The hub, and the MCP client under it, load when a command runs: `serve` and `--help` start without them. */
async function withHub<T>(options: OpenHubOptions, work: (opened: OpenedHub) => Promise<T>): Promise<T> {
  const { withHub: open } = await import("../open-hub.js");
  return open(options, work);
}

interface ConfigOption {
  config?: string;
}
interface JsonOption {
  json?: boolean;
}
interface ServerOption {
  server?: string;
}

const CONFIG_HELP = "config file (default: ./toolbridge.json, then ~/.config/toolbridge/config.json, else the bundled time and math servers)";

/** Every hub command reads --config and can print its result as --json. */
function hubCommand(program: Command, name: string, description: string, json: string): Command {
  return program.command(name).description(description).option("-c, --config <file>", CONFIG_HELP).option("--json", json);
}

function listing(): ListingOptions {
  const options: ListingOptions = { colors: colorsFor(process.stdout, process.env) };
  if (process.stdout.isTTY && process.stdout.columns) options.maxWidth = process.stdout.columns;
  return options;
}

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A list as JSON, as a table, or (when empty) as a note on stderr. */
function printList<T>(items: readonly T[], options: JsonOption, nothing: string, render: (items: readonly T[], listing: ListingOptions) => string): void {
  if (options.json) return printJson(items);
  if (items.length === 0) return note(nothing);
  process.stdout.write(render(items, listing()));
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

/** On a terminal, one line on stderr rewritten on each progress notification. */
function progressLine(): { update: (progress: Progress) => void; clear: () => void } {
  if (!process.stderr.isTTY) return { update: () => {}, clear: () => {} };
  const c = colorsFor(process.stderr, process.env);
  let shown = false;
  return {
    update: (p) => {
      const amount = p.total !== undefined ? `${p.progress}/${p.total}` : String(p.progress);
      process.stderr.write(`\r\x1b[2K${c.dim(`progress ${amount}${p.message ? ` ${p.message}` : ""}`)}`);
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
        await withHub({ config: options.config, warnFailures: false, login: false }, async ({ hub }) => {
          printList(hub.servers(), options, "no servers configured", renderServers);
        });
      }),
    );

  hubCommand(program, "tools", "list the tools of every server, under the names a model sees", "print the tools, with their schemas, as JSON")
    .option("-s, --server <name>", "only this server's tools")
    .action(
      action(async (options: ConfigOption & JsonOption & ServerOption) => {
        await withHub({ config: options.config, only: options.server }, async ({ hub }) => {
          printList(hub.tools(), options, "no tools", renderTools);
        });
      }),
    );

  hubCommand(program, "call", "call a tool and print its result; exits 1 when the tool reports an error", "print the whole result as JSON")
    .argument("<tool>", "tool name, plain or qualified as server__tool")
    .argument("[json-args]", `arguments as one JSON object, e.g. '{"format": "iso"}'`)
    .option("--timeout <ms>", "give up after this many milliseconds without progress", parseTimeout)
    .action(
      action(async (tool: string, jsonArgs: string | undefined, options: ConfigOption & JsonOption & { timeout?: number }) => {
        const args = parseJsonArgs(jsonArgs);
        await withHub({ config: options.config }, async ({ hub, signal }) => {
          const progress = progressLine();
          const result = await hub
            .callTool(tool, args, { signal, onProgress: progress.update, ...(options.timeout ? { timeoutMs: options.timeout } : {}) })
            .finally(progress.clear);
          if (options.json) printJson(result);
          else if (result.isError) {
            const c = colorsFor(process.stderr, process.env);
            process.stderr.write(`${c.red("toolbridge:")} tool "${tool}" reported an error:\n${renderToolResult(result, c)}`);
          } else process.stdout.write(renderToolResult(result, colorsFor(process.stdout, process.env)));
          if (result.isError) throw new ReportedFailure();
        });
      }),
    );

  hubCommand(program, "resources", "list the resources and resource templates of every server", "print resources and templates as JSON")
    .option("-s, --server <name>", "only this server's resources")
    .action(
      action(async (options: ConfigOption & JsonOption & ServerOption) => {
        await withHub({ config: options.config, only: options.server }, async ({ hub }) => {
          const [resources, templates] = await Promise.all([hub.resources(), hub.resourceTemplates()]);
          if (options.json) return printJson({ resources, resourceTemplates: templates });
          if (resources.length === 0 && templates.length === 0) return note("no resources");
          const parts: string[] = [];
          if (resources.length > 0) parts.push(renderResources(resources, listing()));
          if (templates.length > 0) parts.push(renderResourceTemplates(templates, listing()));
          process.stdout.write(parts.join("\n"));
        });
      }),
    );

  hubCommand(program, "read", "read a resource (a listed URI, or one matching a server's URI template)", "print the contents as JSON (blobs base64-encoded)")
    .argument("<uri>", "resource URI")
    .option("-s, --server <name>", "start and ask only this server")
    .action(
      action(async (uri: string, options: ConfigOption & JsonOption & ServerOption) => {
        await withHub({ config: options.config, only: options.server }, async ({ hub }) => {
          const result = await hub.readResource(uri, options.server);
          if (options.json) return printJson(result);
          process.stdout.write(renderResourceContents(result, colorsFor(process.stdout, process.env)));
        });
      }),
    );

  hubCommand(program, "prompts", "list the prompts of every server (* marks a required argument)", "print the prompts as JSON")
    .action(
      action(async (options: ConfigOption & JsonOption) => {
        await withHub({ config: options.config }, async ({ hub }) => {
          printList(await hub.prompts(), options, "no prompts", renderPrompts);
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
        await withHub({ config: options.config, only: options.server }, async ({ hub }) => {
          const result = await hub.getPrompt(name, args, options.server);
          if (options.json) return printJson(result);
          process.stdout.write(renderPromptMessages(result, colorsFor(process.stdout, process.env)));
        });
      }),
    );
}
