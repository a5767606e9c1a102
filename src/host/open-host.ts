import { dirname } from "node:path";
import { loadConfig, type ResolvedConfig } from "../config/load.js";
import { ConfigError } from "../config/errors.js";
import { userOAuthDir } from "../config/locate.js";
import type { ServerConfig } from "../config/schema.js";
import { Hub, type HubOptions } from "../mcp/hub.js";
import { directoryArguments, toRoot } from "../mcp/roots.js";
import type { ClientHandlers, HubEvent, ServerState } from "../mcp/types.js";
import { ToolOwners } from "./tool-owners.js";

type Env = Readonly<Record<string, string | undefined>>;

export interface OpenHostOptions {
  /** The config file (`--config FILE`); else the one found from `cwd`, else the built-in default. */
  config?: string;
  env?: Env;
  cwd?: string;
  /** Stops the servers while they start, and ends the start (it rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Hears what a person should read: the config's warnings, servers that failed, names that match no tool. */
  warn?: (line: string) => void;
  /** Warn about each server that failed to connect (default true). */
  warnFailures?: boolean;
  /** Start only this server (`--server`); it must exist and connect, or the start fails. */
  only?: string;
  /**
   * Given the configured servers and the config file (undefined: the built-in default), the
   * ones to start (the others are not), if only some are needed; unlike `only`, those that
   * fail are warned about, not fatal.
   */
  serversFor?: (servers: Readonly<Record<string, ServerConfig>>, configPath: string | undefined) => readonly string[] | undefined;
  /** Hears the hub's events from the start: each server's start-up as it happens. */
  onHubEvent?: (event: HubEvent) => void;
  /** Hears the hub as soon as it exists, before its servers have connected. */
  onHub?: (hub: Hub) => void;
  /** `--root DIR` (repeatable): the roots servers are offered, instead of the config's top-level `roots`. */
  roots?: readonly string[];
  /** How servers' sampling and elicitation requests are answered, given the config. */
  handlers?: (config: ResolvedConfig) => ClientHandlers;
  /**
   * Return as soon as the config is read (and `alongside` done), the servers still
   * connecting: `ready` says when they all have; failures are not warned about (the caller
   * shows each server's state).
   */
  background?: boolean;
  /**
   * Return before every server has connected or failed once this holds of the hub (asked as
   * each server's state changes): `call`, once the tool's owner is known. The servers still
   * starting go on doing so, and are stopped with the hub.
   */
  enoughWhen?: (hub: Hub) => boolean;
}

export interface OpenedHost<T = undefined> {
  hub: Hub;
  config: ResolvedConfig;
  /** The config file read; undefined when the built-in default is in use. */
  configPath?: string;
  /** Settles when every server has connected or failed (at once unless `background`). */
  ready: Promise<void>;
  /** What `alongside` gave. */
  alongside: T;
}

/**
 * The first step of every front end's session: the config read and its servers connected,
 * while `alongside` (making the model, say) runs with the config. What a person should read
 * goes to `warn`; signals and exit codes are the front end's (see src/cli/open-hub.ts). An
 * aborted `signal` stops the servers and ends the start without waiting for `alongside`.
 */
export async function openHost<T = undefined>(options: OpenHostOptions, alongside?: (config: ResolvedConfig) => Promise<T>): Promise<OpenedHost<T>> {
  const env = options.env ?? process.env;
  const warn = options.warn ?? (() => undefined);
  const cwd = options.cwd ?? process.cwd();
  const loaded = loadConfig({ file: options.config, cwd, env });
  for (const warning of loaded.warnings) warn(`${loaded.path}: ${warning}`);
  const only = options.only;
  const some = only === undefined ? options.serversFor?.(loaded.config.mcpServers, loaded.path) : undefined;
  const chosen = only !== undefined ? onlyServer(loaded.config.mcpServers, only) : some ? someServers(loaded.config.mcpServers, some) : loaded.config.mcpServers;
  // With no roots given anywhere, a server keeps the directories its arguments name (see directoryArguments).
  const servers = options.roots?.length || loaded.config.roots ? chosen : withArgumentRoots(chosen);
  // Started first, so that what it throws at once (a bad flag) comes before any server starts.
  const besides = alongside ? alongside(loaded.config) : Promise.resolve(undefined as T);
  const hubOptions: HubOptions = {
    ...(options.signal ? { signal: options.signal } : {}),
    oauthDir: userOAuthDir(env),
    ...(options.onHubEvent ? { onEvent: options.onHubEvent } : {}),
    // Flags are relative to where the command runs, the config's roots to the config file.
    cwd: loaded.path !== undefined ? dirname(loaded.path) : cwd,
    roots: options.roots?.length ? options.roots.map((root) => toRoot(root, cwd).uri) : (loaded.config.roots ?? [cwd]),
    ...(loaded.config.tasks !== undefined ? { tasks: loaded.config.tasks } : {}),
    ...options.handlers?.(loaded.config),
  };
  const start = Hub.start(servers, hubOptions);
  const hub = start.hub;
  options.onHub?.(hub);
  const ready = options.background ? start.ready : Promise.resolve();
  const connecting = options.background ? Promise.resolve(hub) : startedEnough(start, options.enoughWhen);
  const [connected, extra] = await Promise.allSettled([connecting, untilAborted(besides, options.signal)]);
  try {
    if (options.signal?.aborted) throw options.signal.reason;
    if (connected.status === "rejected") throw connected.reason;
    if (extra.status === "rejected") throw extra.reason;
    const needed = only === undefined ? undefined : connected.value.servers()[0];
    if (needed && needed.status !== "connected") throw new Error(unavailable(needed));
    if ((options.warnFailures ?? true) && !options.background) {
      for (const state of connected.value.servers()) {
        if (state.status === "failed") warn(unavailable(state));
      }
    }
    // In the background the servers have not listed their tools yet.
    if (!options.background) {
      for (const line of unmatchedToolNames(connected.value, loaded.config, only === undefined && some === undefined)) warn(`${loaded.path ?? "config"}: ${line}`);
      ToolOwners.open(env)?.remember(loaded.path, loaded.config.mcpServers, connected.value.servers(), connected.value.tools());
    }
    return { hub: connected.value, config: loaded.config, ...(loaded.path !== undefined ? { configPath: loaded.path } : {}), ready, alongside: extra.value };
  } catch (error) {
    await hub.close({ terminate: options.signal?.aborted === true });
    throw error;
  }
}

/** The hub once every server has connected or failed, or sooner once `enough` holds of it. */
function startedEnough(start: { hub: Hub; ready: Promise<void> }, enough: ((hub: Hub) => boolean) | undefined): Promise<Hub> {
  const { hub, ready } = start;
  if (!enough) return ready.then(() => hub);
  return new Promise((resolve) => {
    const done = (): void => {
      stop();
      resolve(hub);
    };
    const stop = hub.on((event) => {
      if (event.type === "server-status" && enough(hub)) done();
    });
    void ready.then(done);
  });
}

/** `work`, or the signal's abort if that comes first: a start that is stopped does not wait for the model server. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return Promise.race([
    work,
    new Promise<never>((_resolve, reject) => {
      if (signal.aborted) reject(signal.reason);
      else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    }),
  ]);
}

/** Tool names in the config that match no tool: a typo hides a tool, or lets one through, without a word otherwise. */
function unmatchedToolNames(hub: Hub, config: ResolvedConfig, everyServer: boolean): string[] {
  const quoted = (names: string[]) => names.map((name) => `"${name}"`).join(", ");
  const lines = hub.unmatchedToolFilters().map(({ server, key, names }) => `mcpServers.${server}.${key}: ${quoted(names)} match${names.length === 1 ? "es" : ""} no tool of "${server}"`);
  const enabled = config.tools?.enabled ?? [];
  // Judged only when every server was started and is up: the tools of the others are unknown.
  if (enabled.length > 0 && everyServer && hub.servers().every((state) => state.status === "connected" || state.status === "disabled")) {
    const known = new Set(hub.tools().flatMap((tool) => [tool.name, tool.originalName]));
    const unmatched = enabled.filter((name) => !known.has(name));
    if (unmatched.length > 0) lines.push(`tools.enabled: ${quoted(unmatched)} match${unmatched.length === 1 ? "es" : ""} no tool`);
  }
  return lines;
}

function withArgumentRoots(servers: Record<string, ServerConfig>): Record<string, ServerConfig> {
  return Object.fromEntries(
    Object.entries(servers).map(([name, config]) => {
      const named = config.roots ? [] : directoryArguments(config);
      return [name, named.length > 0 ? { ...config, roots: named } : config];
    }),
  );
}

/** `--server NAME`: a name the config does not have is a mistake in what was asked for, found before anything starts. */
function onlyServer(servers: Record<string, ServerConfig>, name: string): Record<string, ServerConfig> {
  const config = servers[name];
  if (config === undefined) throw new ConfigError(`unknown server "${name}"; servers: ${Object.keys(servers).join(", ") || "none"}`);
  return { [name]: config };
}

function someServers(servers: Record<string, ServerConfig>, names: readonly string[]): Record<string, ServerConfig> {
  return Object.fromEntries(Object.entries(servers).filter(([name]) => names.includes(name)));
}

function unavailable(state: ServerState): string {
  if (state.needsLogin) return `server "${state.name}" needs login: run toolbridge auth login ${state.name}`;
  if (state.status === "failed") return `server "${state.name}" failed to start: ${state.error ?? "unknown error"}`;
  return `server "${state.name}" is ${state.status}`;
}
