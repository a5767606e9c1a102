import { InvalidArgumentError, type Command } from "commander";
import { action } from "../errors.js";
import type { McpAddOptions, McpFileOptions } from "./mcp-actions.js";

/** `KEY=VALUE`, repeatable. */
function keyValue(value: string, previous: string[] = []): string[] {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) throw new InvalidArgumentError("Expected KEY=VALUE.");
  return [...previous, value];
}

/** `Name: value`, repeatable. */
function header(value: string, previous: string[] = []): string[] {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:/.test(value)) throw new InvalidArgumentError('Expected "Name: value".');
  return [...previous, value];
}

const SCOPE_HELP = "which config file: project (./toolbridge.json) or user (~/.config/toolbridge/config.json); default: the file in use, else the user's";

/** `toolbridge mcp add|list|remove`: the server list without editing JSON, as `claude mcp` does. */
export function registerMcpCommands(program: Command): void {
  const mcp = program.command("mcp").description("add, list and remove MCP servers in the config file");
  mcp
    .command("add")
    .description("add a server: `mcp add NAME -- COMMAND [ARGS...]` (stdio) or `mcp add NAME --url URL` (remote)")
    .argument("<name>", "the server's name")
    .argument("[command...]", "after --: the command that starts the server, and its arguments")
    .option("--url <url>", "a remote server's URL (Streamable HTTP, falling back to SSE)")
    .option("-t, --transport <type>", "stdio, http or sse (default: stdio with a command, http with --url)")
    .option("-e, --env <KEY=VALUE>", "an environment variable for the server (repeatable; ${VAR} is expanded when it starts)", keyValue)
    .option("-H, --header <header>", 'an HTTP header for a remote server, "Name: value" (repeatable)', header)
    .option("-s, --scope <scope>", SCOPE_HELP)
    .option("-c, --config <file>", "the config file to change")
    .option("-f, --force", "replace a server of the same name")
    .action(action(async (name: string, command: string[], options: McpAddOptions) => (await import("./mcp-actions.js")).add(name, command, options)));
  mcp
    .command("list")
    .description("list the configured servers and the file they are in")
    .option("-s, --scope <scope>", SCOPE_HELP)
    .option("-c, --config <file>", "the config file to read")
    .option("--json", "print the entries as JSON")
    .action(action(async (options: McpFileOptions & { json?: boolean }) => (await import("./mcp-actions.js")).list(options)));
  mcp
    .command("remove")
    .description("remove a server from the config file")
    .argument("<name>", "the server's name")
    .option("-s, --scope <scope>", SCOPE_HELP)
    .option("-c, --config <file>", "the config file to change")
    .action(action(async (name: string, options: McpFileOptions) => (await import("./mcp-actions.js")).remove(name, options)));
}
