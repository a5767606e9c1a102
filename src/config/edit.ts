import { chmodSync, existsSync, mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError } from "./errors.js";
import { isPlainObject, type Environment } from "./expand-env.js";
import { readConfigText } from "./read-file.js";
import { parseConfig } from "./load.js";

/**
 * Changes to a config file's server list (`toolbridge mcp add|remove`): the rest of the file
 * is kept as it was read, written back with the file's own indentation, and checked as a whole
 * before it replaces the old one. A new file (and its directory) is made readable only by you.
 */

/** The `mcpServers` object of the file (VS Code's `servers` when that is what it holds), with the parsed file. */
function readForEdit(file: string, env: Environment): { data: Record<string, unknown>; key: "mcpServers" | "servers"; indent: string | number } {
  if (!existsSync(file)) return { data: {}, key: "mcpServers", indent: 2 };
  const text = readConfigText(file);
  let data: unknown;
  try {
    data = text.trim() === "" ? {} : JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    // Loading reports exactly where the syntax is wrong.
    parseConfig(text, { file, env });
    throw new ConfigError("invalid JSON", { file });
  }
  if (!isPlainObject(data)) throw new ConfigError("expected a JSON object at the top level", { file });
  const key = data.mcpServers === undefined && isPlainObject(data.servers) ? "servers" : "mcpServers";
  if (data[key] !== undefined && !isPlainObject(data[key])) throw new ConfigError(`${key}: expected an object`, { file });
  const indent = /^\{\s*\n([ \t]+)"/.exec(text)?.[1] ?? 2;
  return { data, key, indent };
}

function write(file: string, data: Record<string, unknown>, indent: string | number, env: Environment): void {
  const text = `${JSON.stringify(data, null, indent)}\n`;
  // What is written must load (`${VAR}`s as they expand here): a bad entry is refused before the file changes.
  parseConfig(text, { file, env });
  const existed = existsSync(file);
  if (!existed) mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, text, { mode: 0o600, flag: "wx" });
  // An existing file keeps its mode; a new one is 0600.
  if (existed) chmodSync(aside, statSync(file).mode & 0o777);
  renameSync(aside, file);
}

export interface AddServerOptions {
  /** Replace a server of the same name. */
  force?: boolean;
  /** Where `${VAR}` takes its values when the result is checked. */
  env: Environment;
}

/** Adds (or with `force` replaces) one server entry; returns whether the file was new. */
export function addServer(file: string, name: string, entry: Record<string, unknown>, options: AddServerOptions): { created: boolean } {
  const created = !existsSync(file);
  const { data, key, indent } = readForEdit(file, options.env);
  const servers = (data[key] ?? {}) as Record<string, unknown>;
  if (Object.hasOwn(servers, name) && !options.force) {
    throw new ConfigError(`a server named "${name}" is already configured: use --force to replace it, or choose another name`, { file, path: [key, name] });
  }
  write(file, { ...data, [key]: { ...servers, [name]: entry } }, indent, options.env);
  return { created };
}

/** Removes one server entry; throws when there is none of that name. */
export function removeServer(file: string, name: string, env: Environment): void {
  if (!existsSync(file)) throw new ConfigError("no such file", { file });
  const { data, key, indent } = readForEdit(file, env);
  const servers = (data[key] ?? {}) as Record<string, unknown>;
  if (!Object.hasOwn(servers, name)) {
    throw new ConfigError(`no server named "${name}"; servers: ${Object.keys(servers).join(", ") || "none"}`, { file, path: [key] });
  }
  const { [name]: _removed, ...rest } = servers;
  write(file, { ...data, [key]: rest }, indent, env);
}

/** The server entries as the file holds them (`${VAR}`s unexpanded); the file has loaded already. */
export function serverEntries(file: string): Record<string, unknown> {
  const { data, key } = readForEdit(file, {});
  return (data[key] ?? {}) as Record<string, unknown>;
}
