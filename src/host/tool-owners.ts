import { createHash } from "node:crypto";
import { z } from "zod";
import type { ServerConfig } from "../config/schema.js";
import { plainName } from "../mcp/tool-names.js";
import type { HubTool, ServerState } from "../mcp/types.js";
import { newestEntries, readStateFile, stateFilePath, writeStateFile } from "./state-file.js";

type Env = Readonly<Record<string, string | undefined>>;

/** A server with more tools than this is not remembered: it is started for every plain name. */
const MAX_TOOLS = 10_000;
/** `failed`: the server failed to start when last started with this config (its tools, if any, as last seen connected). */
const ServerEntrySchema = z.object({ config: z.string(), tools: z.array(z.string()).max(MAX_TOOLS), failed: z.literal(true).optional() });
const ConfigEntrySchema = z.object({ at: z.string(), servers: z.record(z.string(), ServerEntrySchema) });
const FileSchema = z.object({ version: z.literal(1), configs: z.record(z.string(), ConfigEntrySchema) });
type ConfigEntry = z.infer<typeof ConfigEntrySchema>;
type ServerEntry = z.infer<typeof ServerEntrySchema>;

/** A file bigger than this is not ours to read. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Config files remembered; the least recently used go first. */
const MAX_CONFIGS = 50;
/** The key of the built-in default config (no file). */
const DEFAULT_CONFIG = "(default)";

/**
 * Which server offers which tool names, as each was last seen connected, kept per config
 * file in the state directory (`tool-owners.json`, 0600), so that `call NAME` starts only
 * the servers that may offer NAME: those last seen offering it, and those never seen (or
 * whose entry in the config changed since). Among those the name is resolved as against
 * every server, an ambiguity included; a name none of them offers after all makes the
 * caller start every server (see the call command). A server is seen whenever a command
 * connects it; one that fails to start is remembered as failed, so that a call need not wait
 * out its startup timeout again (see `mustAwait`). A file that cannot be read counts as empty.
 */
export class ToolOwners {
  private configs: Record<string, ConfigEntry> | undefined;

  private constructor(readonly file: string) {}

  /** The index in the user's state directory; undefined when that cannot be made (no home, read-only). */
  static open(env: Env): ToolOwners | undefined {
    const file = stateFilePath(env, "tool-owners.json");
    return file === undefined ? undefined : new ToolOwners(file);
  }

  /**
   * The enabled servers that may offer the plain tool name `name`, in config order; undefined
   * when that is every enabled server (nothing is gained by choosing).
   */
  mayOffer(configPath: string | undefined, servers: Readonly<Record<string, ServerConfig>>, name: string): string[] | undefined {
    const seen = this.read()[configPath ?? DEFAULT_CONFIG]?.servers ?? {};
    const enabled = Object.entries(servers).filter(([, config]) => !config.disabled);
    // One that failed every time it was seen is started all the same: it may be up now, its tools unknown.
    const chosen = enabled.filter(([server, config]) => {
      const entry = current(seen[server], config);
      return entry === undefined || offers(entry, name) || (entry.failed === true && entry.tools.length === 0);
    });
    return chosen.length === enabled.length ? undefined : chosen.map(([server]) => server);
  }

  /**
   * Whether `call NAME` must wait for `server`, still starting, before it calls the NAME another
   * server offers: yes if it may offer NAME too (an ambiguity to report), as one never seen
   * with its current config may; not if it failed to start last time, so that a server that
   * always fails does not hold every call for its startup timeout.
   */
  mustAwait(configPath: string | undefined, servers: Readonly<Record<string, ServerConfig>>, server: string, name: string): boolean {
    const config = servers[server];
    if (config === undefined) return false;
    const entry = current(this.read()[configPath ?? DEFAULT_CONFIG]?.servers[server], config);
    return entry === undefined || (entry.failed !== true && offers(entry, name));
  }

  /** Records the tools of every connected server (by their own names, as the config's filters leave them). */
  remember(configPath: string | undefined, servers: Readonly<Record<string, ServerConfig>>, states: readonly ServerState[], tools: readonly HubTool[]): void {
    const configs = this.read();
    const key = configPath ?? DEFAULT_CONFIG;
    // Servers no longer in the config are forgotten.
    const kept = Object.fromEntries(Object.entries(configs[key]?.servers ?? {}).filter(([server]) => servers[server] !== undefined));
    for (const state of states) {
      const config = servers[state.name];
      if (config === undefined) continue;
      if (state.status === "failed") {
        kept[state.name] = { config: fingerprint(config), tools: current(kept[state.name], config)?.tools ?? [], failed: true };
        continue;
      }
      if (state.status !== "connected") continue;
      const names = tools.filter((tool) => tool.server === state.name).map((tool) => tool.originalName);
      if (names.length > MAX_TOOLS) delete kept[state.name];
      else kept[state.name] = { config: fingerprint(config), tools: names };
    }
    configs[key] = { at: new Date().toISOString(), servers: kept };
    this.configs = newestEntries(configs, MAX_CONFIGS);
    writeStateFile(this.file, { version: 1, configs: this.configs });
  }

  private read(): Record<string, ConfigEntry> {
    this.configs ??= readStateFile(this.file, FileSchema, MAX_FILE_BYTES)?.configs ?? {};
    return this.configs;
  }
}

/** What is remembered of a server, if it was seen with the config it has now. */
function current(entry: ServerEntry | undefined, config: ServerConfig): ServerEntry | undefined {
  return entry?.config === fingerprint(config) ? entry : undefined;
}

function offers(entry: ServerEntry, name: string): boolean {
  return entry.tools.some((tool) => tool === name || plainName(tool) === name);
}

/** A server's entry in the config, hashed: a change to it (a version, an argument, a filter) may change its tools. */
function fingerprint(config: ServerConfig): string {
  return createHash("sha256").update(JSON.stringify(config)).digest("hex").slice(0, 32);
}
