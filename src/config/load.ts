import { defaultServers } from "./bundled-servers.js";
import { ConfigError } from "./errors.js";
import { expandServerEntry, isPlainObject, type Environment } from "./expand-env.js";
import { findDuplicateKey, locateJsonSyntaxError } from "./json-syntax.js";
import { resolveLlmConfig } from "./llm-config.js";
import { locateConfigFile } from "./locate.js";
import { readConfigText } from "./read-file.js";
import { adoptOtherHostKeys } from "./other-hosts.js";
import type { Config, ServerConfig } from "./schema.js";
import { unknownKeyWarnings } from "./unknown-keys.js";
import { validateConfig } from "./validate.js";

/** A validated config with `${VAR}`s expanded, `mcpServers` always present and `vllm` read into `llm`. */
export type ResolvedConfig = Config & { mcpServers: Record<string, ServerConfig> };

export interface LoadConfigOptions {
  /** `--config FILE`, relative to cwd. */
  file?: string;
  cwd?: string;
  /** Where `${VAR}` takes its values; the CLI passes process.env. */
  env: Environment;
  /** The directory holding the user's `config.json`, overriding the platform default. */
  configDir?: string;
  platform?: NodeJS.Platform;
}

export interface LoadedConfig {
  /** The file read; undefined when none was found and the built-in default applies. */
  path?: string;
  config: ResolvedConfig;
  /** Doubtful keys (a misspelt key, no server list), one line each, for the caller to show. */
  warnings: string[];
}

/**
 * Finds, reads, expands and validates the config. Without any config file the bundled
 * `time` and `math` servers are the servers. Throws ConfigError, one line.
 */
export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const file = locateConfigFile({ ...options, cwd: options.cwd ?? process.cwd() });
  if (file === undefined) return { config: { mcpServers: defaultServers() }, warnings: [] };
  return { path: file, ...readConfig(readConfigText(file), { file, env: options.env }) };
}

/** Parses the text of a config file; `file` only names it in errors. */
export function parseConfig(text: string, options: { file?: string; env: Environment }): ResolvedConfig {
  return readConfig(text, options).config;
}

function readConfig(text: string, options: { file?: string; env: Environment }): { config: ResolvedConfig; warnings: string[] } {
  const { file, env } = options;
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (source.trim() === "") throw new ConfigError("the file is empty (write {} for an empty config)", { file });
  let data: unknown;
  try {
    data = JSON.parse(source);
  } catch {
    const { line, column, reason } = locateJsonSyntaxError(source);
    throw new ConfigError(`invalid JSON: ${reason}`, { file, line, column });
  }
  const duplicate = findDuplicateKey(source);
  if (duplicate) {
    throw new ConfigError(`duplicate key ${JSON.stringify(duplicate.key)}: JSON keeps only the last one, remove the other`, {
      file,
      line: duplicate.line,
      column: duplicate.column,
      path: duplicate.path,
    });
  }
  const warnings = unknownKeyWarnings(data);
  const config = validateConfig(prepareServers(vsCodeShape(data), env, file), file);
  const resolved: ResolvedConfig = { ...config, mcpServers: config.mcpServers ?? defaultServers() };
  if (config.llm !== undefined || config.vllm !== undefined) resolved.llm = resolveLlmConfig(config);
  return { config: resolved, warnings };
}

/** VS Code's `mcp.json` lists its servers under `servers` (each with a `type`): read as `mcpServers`. */
function vsCodeShape(data: unknown): unknown {
  if (!isPlainObject(data) || data.mcpServers !== undefined || !isPlainObject(data.servers)) return data;
  const { servers, inputs: _inputs, ...rest } = data;
  return { ...rest, mcpServers: servers };
}

/** Before validation, so that `${BASE}/mcp` is a URL by the time the schema checks it. */
function prepareServers(data: unknown, env: Environment, file: string | undefined): unknown {
  if (!isPlainObject(data) || !isPlainObject(data.mcpServers)) return data;
  // JSON.parse makes "__proto__" an own key; assigned anywhere later it would set a prototype and vanish.
  if (Object.hasOwn(data.mcpServers, "__proto__")) {
    throw new ConfigError('"__proto__" cannot be a server name: choose another', { file, path: ["mcpServers"] });
  }
  const servers = Object.fromEntries(
    Object.entries(data.mcpServers).map(([name, entry]) => {
      if (!isPlainObject(entry)) return [name, entry];
      const adopted = adoptOtherHostKeys(entry);
      // A disabled server is often disabled because its secrets are not set here.
      return [name, expandServerEntry(adopted, ["mcpServers", name], { env, file, lenient: adopted.disabled === true })];
    }),
  );
  return { ...data, mcpServers: servers };
}
