/** What `toolbridge mcp …` does; loaded only when one of them runs. */
import { resolve } from "node:path";
import { addServer, removeServer, serverEntries } from "../../config/edit.js";
import { loadConfig } from "../../config/load.js";
import { locateConfigFile, PROJECT_CONFIG_NAME, userConfigFile } from "../../config/locate.js";
import { redactUrl } from "../../config/redact.js";
import { isStdioServer, type ServerConfig } from "../../config/schema.js";
import { UsageError } from "../errors.js";
import { colorsFor } from "../render/colors.js";
import { renderTable } from "../render/table.js";

export interface McpFileOptions {
  scope?: string;
  config?: string;
}

export interface McpAddOptions extends McpFileOptions {
  url?: string;
  transport?: string;
  env?: string[];
  header?: string[];
  force?: boolean;
}

/** The file `mcp` works on: --config, else the scope's, else the one toolbridge reads, else the user's. */
function targetFile(options: McpFileOptions): string {
  const cwd = process.cwd();
  if (options.config !== undefined) {
    if (options.scope !== undefined) throw new UsageError("--config and --scope name the file twice: give one");
    return resolve(cwd, options.config);
  }
  if (options.scope === "project") return resolve(cwd, PROJECT_CONFIG_NAME);
  if (options.scope === "user") return userConfigFile(process.env);
  if (options.scope !== undefined) throw new UsageError(`--scope: "${options.scope}" is not project or user`);
  return locateConfigFile({ cwd, env: process.env }) ?? userConfigFile(process.env);
}

function pairs(list: readonly string[] | undefined, separator: RegExp): Record<string, string> | undefined {
  if (!list?.length) return undefined;
  return Object.fromEntries(list.map((item) => {
    const at = separator.exec(item)!;
    return [item.slice(0, at.index).trim(), item.slice(at.index + at[0].length).trim()];
  }));
}

/** The entry as the config file holds it. */
function entryFor(command: readonly string[], options: McpAddOptions): Record<string, unknown> {
  const transport = options.transport ?? (options.url !== undefined ? "http" : "stdio");
  const env = pairs(options.env, /=/);
  const headers = pairs(options.header, /:/);
  if (transport === "stdio") {
    if (options.url !== undefined) throw new UsageError("--url is for a remote server: leave out --transport stdio, or give a command after --");
    if (headers) throw new UsageError("--header is for a remote server (--url)");
    const [program, ...args] = command;
    if (program === undefined) throw new UsageError("give the command that starts the server after --: toolbridge mcp add NAME -- COMMAND [ARGS...]");
    return { command: program, ...(args.length > 0 ? { args } : {}), ...(env ? { env } : {}) };
  }
  if (transport !== "http" && transport !== "sse") throw new UsageError(`--transport: "${transport}" is not stdio, http or sse`);
  if (options.url === undefined) throw new UsageError(`a remote server needs --url URL`);
  if (command.length > 0) throw new UsageError("give either a command (after --) or --url, not both");
  if (env) throw new UsageError("--env is for a server toolbridge starts (a command); a remote server takes --header");
  return { ...(transport === "sse" ? { type: "sse" } : {}), url: options.url, ...(headers ? { headers } : {}) };
}

export async function add(name: string, command: string[], options: McpAddOptions): Promise<void> {
  const file = targetFile(options);
  const entry = entryFor(command, options);
  // With no config file at all, the bundled servers were the servers; the first file written holds only this one.
  const hadConfig = locateConfigFile({ cwd: process.cwd(), env: process.env }) !== undefined;
  const { created } = addServer(file, name, entry, { force: options.force === true, env: process.env });
  process.stderr.write(`${created ? "created" : "updated"} ${file}: added server "${name}"\n`);
  if (created && !hadConfig && name !== "time" && name !== "math") {
    process.stderr.write(
      `the bundled time and math servers, used while there was no config, are not in ${file}: \`toolbridge mcp add time -- toolbridge serve time\` (and math) keeps them\n`,
    );
  }
}

export async function remove(name: string, options: McpFileOptions): Promise<void> {
  const file = targetFile(options);
  removeServer(file, name, process.env);
  process.stderr.write(`${file}: removed server "${name}"\n`);
}

export async function list(options: McpFileOptions & { json?: boolean }): Promise<void> {
  const file = options.config !== undefined || options.scope !== undefined ? targetFile(options) : undefined;
  const loaded = loadConfig({ file, cwd: process.cwd(), env: process.env });
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ file: loaded.path ?? null, mcpServers: loaded.path ? serverEntries(loaded.path) : loaded.config.mcpServers }, null, 2)}\n`);
    return;
  }
  // As written in the file, `${VAR}`s unexpanded: what they expand to may be a secret.
  const written = loaded.path ? serverEntries(loaded.path) : loaded.config.mcpServers;
  const rows = Object.entries(written as Record<string, ServerConfig>);
  const c = colorsFor(process.stdout, process.env);
  process.stdout.write(
    renderTable(
      [
        { header: "NAME", value: ([name]: (typeof rows)[number]) => name, color: (text) => c.bold(text) },
        { header: "TRANSPORT", value: ([, s]) => (isStdioServer(s) ? "stdio" : s.type === "sse" ? "sse" : "http") },
        // Arguments and URLs may hold secrets; the URL is shown as everywhere else, with them starred.
        { header: "COMMAND OR URL", value: ([, s]) => (isStdioServer(s) ? [s.command, ...(s.args ?? [])].join(" ") : redactUrl(s.url)), shrink: true },
        { header: "STATE", value: ([, s]) => (s.disabled ? "disabled" : s.trust ? "enabled, trusted" : "enabled") },
      ],
      rows,
      { colors: c, ...(process.stdout.isTTY && process.stdout.columns ? { maxWidth: process.stdout.columns } : {}) },
    ),
  );
  process.stderr.write(`${c.dim(loaded.path ? `from ${loaded.path}` : "no config file: the bundled servers")}\n`);
}
