import { InvalidArgumentError, type Command } from "commander";
import type { Progress } from "../../mcp/types.js";
import { action, ReportedFailure } from "../errors.js";
import { parseJsonArgs, promptArguments } from "../json-args.js";
import { withHub } from "../open-hub.js";
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

function listing(): ListingOptions {
  const options: ListingOptions = { colors: colorsFor(process.stdout, process.env) };
  if (process.stdout.isTTY && process.stdout.columns) options.maxWidth = process.stdout.columns;
  return options;
}

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
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
  program
    .command("servers")
    .description("connect to every configured server and show how each one is doing")
    .option("-c, --config <file>", CONFIG_HELP)
    .option("--json", "print the server states as JSON")
    .action(
      action(async (options: ConfigOption & JsonOption) => {
        // The table shows failures itself.
        await withHub({ config: options.config, warnFailures: false }, async ({ hub }) => {
          const states = hub.servers();
          if (options.json) return printJson(states);
          if (states.length === 0) return note("no servers configured");
          process.stdout.write(renderServers(states, listing()));
        });
      }),
    );

  program
    .command("tools")
    .description("list the tools of every server, under the names a model sees")
    .option("-c, --config <file>", CONFIG_HELP)
    .option("-s, --server <name>", "only this server's tools")
    .option("--json", "print the tools, with their schemas, as JSON")
    .action(
      action(async (options: ConfigOption & JsonOption & ServerOption) => {
        await withHub({ config: options.config, only: options.server }, async ({ hub }) => {
          const tools = hub.tools();
          if (options.json) return printJson(tools);
          if (tools.length === 0) return note("no tools");
          process.stdout.write(renderTools(tools, listing()));
        });
      }),
    );

  program
    .command("call")
    .description("call a tool and print its result; exits 1 when the tool reports an error")
    .argument("<tool>", "tool name, plain or qualified as server__tool")
    .argument("[json-args]", `arguments as one JSON object, e.g. '{"format": "iso"}'`)
    .option("-c, --config <file>", CONFIG_HELP)
    .option("--timeout <ms>", "give up after this many milliseconds without progress", parseTimeout)
    .option("--json", "print the whole result as JSON")
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

  program
    .command("resources")
    .description("list the resources and resource templates of every server")
    .option("-c, --config <file>", CONFIG_HELP)
    .option("-s, --server <name>", "only this server's resources")
    .option("--json", "print resources and templates as JSON")
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

  program
    .command("read")
    .description("read a resource (a listed URI, or one matching a server's URI template)")
    .argument("<uri>", "resource URI")
    .option("-c, --config <file>", CONFIG_HELP)
    .option("-s, --server <name>", "start and ask only this server")
    .option("--json", "print the contents as JSON (blobs base64-encoded)")
    .action(
      action(async (uri: string, options: ConfigOption & JsonOption & ServerOption) => {
        await withHub({ config: options.config, only: options.server }, async ({ hub }) => {
          const result = await hub.readResource(uri, options.server);
          if (options.json) return printJson(result);
          process.stdout.write(renderResourceContents(result, colorsFor(process.stdout, process.env)));
        });
      }),
    );

  program
    .command("prompts")
    .description("list the prompts of every server (* marks a required argument)")
    .option("-c, --config <file>", CONFIG_HELP)
    .option("--json", "print the prompts as JSON")
    .action(
      action(async (options: ConfigOption & JsonOption) => {
        await withHub({ config: options.config }, async ({ hub }) => {
          const prompts = await hub.prompts();
          if (options.json) return printJson(prompts);
          if (prompts.length === 0) return note("no prompts");
          process.stdout.write(renderPrompts(prompts, listing()));
        });
      }),
    );

  program
    .command("prompt")
    .description("get a prompt with its arguments filled in and print its messages")
    .argument("<name>", "prompt name")
    .argument("[json-args]", `arguments as one JSON object of strings, e.g. '{"city": "Taipei"}'`)
    .option("-c, --config <file>", CONFIG_HELP)
    .option("-s, --server <name>", "start and ask only this server")
    .option("--json", "print the prompt result as JSON")
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
