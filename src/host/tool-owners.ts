import { createHash } from "node:crypto";
import { z } from "zod";
import type { ServerConfig } from "../config/schema.js";
import { plainName } from "../mcp/tool-names.js";
import type { HubTool, ServerState } from "../mcp/types.js";
import { newestEntries, readStateFile, stateFilePath, writeStateFile } from "./state-file.js";

type Env = Readonly<Record<string, string | undefined>>;

/** A server with more tools than this is not remembered: it is started for every plain name. */
const MAX_TOOLS = 10_000;
const ServerEntrySchema = z.object({ config: z.string(), tools: z.array(z.string()).max(MAX_TOOLS) });
const ConfigEntrySchema = z.object({ at: z.string(), servers: z.record(z.string(), ServerEntrySchema) });
const FileSchema = z.object({ version: z.literal(1), configs: z.record(z.string(), ConfigEntrySchema) });
type ConfigEntry = z.infer<typeof ConfigEntrySchema>;

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
 * connects it. A file that cannot be read counts as empty.
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
    const chosen = enabled.filter(([server, config]) => {
      const entry = seen[server];
      if (entry === undefined || entry.config !== fingerprint(config)) return true;
      return entry.tools.some((tool) => tool === name || plainName(tool) === name);
    });
    return chosen.length === enabled.length ? undefined : chosen.map(([server]) => server);
  }

  /** Records the tools of every connected server (by their own names, as the config's filters leave them). */
  remember(configPath: string | undefined, servers: Readonly<Record<string, ServerConfig>>, states: readonly ServerState[], tools: readonly HubTool[]): void {
    const configs = this.read();
    const key = configPath ?? DEFAULT_CONFIG;
    // Servers no longer in the config are forgotten.
    const kept = Object.fromEntries(Object.entries(configs[key]?.servers ?? {}).filter(([server]) => servers[server] !== undefined));
    for (const state of states) {
      const config = servers[state.name];
      if (state.status !== "connected" || config === undefined) continue;
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

/** A server's entry in the config, hashed: a change to it (a version, an argument, a filter) may change its tools. */
function fingerprint(config: ServerConfig): string {
  return createHash("sha256").update(JSON.stringify(config)).digest("hex").slice(0, 32);
}
