import { dirname } from "node:path";
import { loadConfig, type ResolvedConfig } from "../config/load.js";
import { userOAuthDir } from "../config/locate.js";
import type { ServerConfig } from "../config/schema.js";
import { HubError } from "../mcp/errors.js";
import { Hub, type HubOptions } from "../mcp/hub.js";
import { directoryArguments, toRoot } from "../mcp/roots.js";
import type { ClientHandlers, HubEvent, ServerState } from "../mcp/types.js";
import { ExitCode, UsageError, warn } from "./errors.js";
import { sayStopping } from "./render/startup-status.js";
import { ToolOwners } from "../host/tool-owners.js";

export interface OpenHubOptions {
  /** `--config FILE`. */
  config?: string;
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** Print one line on stderr per server that failed to connect (default true). */
  warnFailures?: boolean;
  /** Start only this server (`--server`); it must exist and connect, or the command fails. */
  only?: string;
  /**
   * Given the configured servers and the config file (undefined: the built-in default), the
   * ones to start (the others are not), if the command needs only some; unlike `only`, those
   * that fail are warned about, not fatal.
   */
  serversFor?: (servers: Readonly<Record<string, ServerConfig>>, configPath: string | undefined) => readonly string[] | undefined;
  /**
   * What the first SIGINT / SIGTERM / SIGHUP does once the servers are up: "exit" (default)
   * aborts `signal`, stops them and exits 130 / 143 / 129; "abort" only aborts `signal`, for
   * a caller that winds down itself. Either way a second signal kills the servers and exits.
   */
  onSignal?: "exit" | "abort";
  /** Once the servers are up, leave SIGINT to the caller (chat: Ctrl-C cancels an answer, not the program). */
  leaveSigint?: boolean;
  /** Hears the hub's events from the start: each server's start-up as it happens. */
  onHubEvent?: (event: HubEvent) => void;
  /** `--root DIR` (repeatable): the roots servers are offered, instead of the config's top-level `roots`. */
  roots?: readonly string[];
  /** How servers' sampling and elicitation requests are answered, given the config. */
  handlers?: (config: ResolvedConfig) => ClientHandlers;
  /**
   * Return as soon as the config is read (and `alongside` done), the servers still
   * connecting: `ready` says when they all have; failures are not warned about (the caller
   * shows each server's state). The chat's prompt opens at once this way.
   */
  background?: boolean;
  /**
   * Return before every server has connected or failed once this holds of the hub (asked as
   * each server's state changes): `call`, once the tool's owner is known. The servers still
   * starting go on doing so, and are stopped with the hub.
   */
  enoughWhen?: (hub: Hub) => boolean;
}

export interface OpenedHub {
  hub: Hub;
  config: ResolvedConfig;
  /** The config file read; undefined when the built-in default is in use. */
  configPath?: string;
  /** Aborted by SIGINT / SIGTERM / SIGHUP: pass it to calls so that servers hear of the cancellation. */
  signal: AbortSignal;
  /** Settles when every server has connected or failed (at once unless `background`). */
  ready: Promise<void>;
}

export interface HubHandle<T> extends OpenedHub {
  /** What `alongside` gave. */
  alongside: T;
  /** The exit code of the signal that aborted `signal` (130 / 143 / 129), if one did. */
  interruptedWith(): number | undefined;
  /** Stops the servers and removes the signal and exit handlers. */
  close(): Promise<void>;
}

/**
 * Loads the config and connects its servers, warning about those that failed, while
 * `alongside` (say, asking the model server which model it serves) runs with the config.
 * A signal while they start stops them at once and exits 130 / 143 / 129 (SIGHUP: a closed
 * terminal); a process 'exit' handler kills what is left as a last resort, and the servers'
 * watchdog what a kill outright leaves, so no server outlives us.
 */
export async function openHub<T = undefined>(options: OpenHubOptions, alongside?: (config: ResolvedConfig) => Promise<T>): Promise<HubHandle<T>> {
  const env = options.env ?? process.env;
  const loaded = loadConfig({ file: options.config, cwd: options.cwd ?? process.cwd(), env });
  for (const warning of loaded.warnings) warn(`${loaded.path}: ${warning}`, env);
  const only = options.only;
  const some = only === undefined ? options.serversFor?.(loaded.config.mcpServers, loaded.path) : undefined;
  const chosen = only !== undefined ? onlyServer(loaded.config.mcpServers, only) : some ? someServers(loaded.config.mcpServers, some) : loaded.config.mcpServers;
  // With no roots given anywhere, a server keeps the directories its arguments name (see directoryArguments).
  const servers = options.roots?.length || loaded.config.roots ? chosen : withArgumentRoots(chosen);
  // Started first, so that what it throws at once (a bad flag) comes before any server starts.
  const besides = alongside ? alongside(loaded.config) : Promise.resolve(undefined as T);
  const controller = new AbortController();
  let hub: Hub | undefined;
  let connecting: Promise<Hub> | undefined;
  let started = false;
  let interrupted: number | undefined;

  const onSignal = (signal: NodeJS.Signals) => {
    const code = EXIT_CODES[signal] ?? ExitCode.terminated;
    if (interrupted !== undefined) {
      hub?.closeSync();
      process.exit(code);
    }
    interrupted = code;
    if (!started) sayStopping(env);
    // While starting, this also stops the servers (Hub.connect's signal).
    controller.abort(new HubError("cancelled", `interrupted by ${signal}`));
    // While starting, not waiting for `alongside` either (a model server that does not answer).
    if (!started) void connecting?.then((stopped) => stopped.close(), () => undefined).finally(() => process.exit(code));
    else if ((options.onSignal ?? "exit") === "exit") void hub?.close({ terminate: true }).finally(() => process.exit(code));
  };
  const onExit = () => hub?.closeSync();
  const release = () => {
    for (const signal of SIGNALS) process.off(signal, onSignal);
    process.off("exit", onExit);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  process.on("exit", onExit);
  const cwd = options.cwd ?? process.cwd();
  const hubOptions: HubOptions = {
    signal: controller.signal,
    oauthDir: userOAuthDir(env),
    ...(options.onHubEvent ? { onEvent: options.onHubEvent } : {}),
    // Flags are relative to where the command runs, the config's roots to the config file.
    cwd: loaded.path !== undefined ? dirname(loaded.path) : cwd,
    roots: options.roots?.length ? options.roots.map((root) => toRoot(root, cwd).uri) : (loaded.config.roots ?? [cwd]),
    ...(loaded.config.tasks !== undefined ? { tasks: loaded.config.tasks } : {}),
    ...options.handlers?.(loaded.config),
  };
  let ready = Promise.resolve();
  if (options.background) {
    const start = Hub.start(servers, hubOptions);
    hub = start.hub;
    ready = start.ready;
    connecting = Promise.resolve(start.hub);
  } else connecting = startedEnough(Hub.start(servers, hubOptions), options.enoughWhen).then((connectedHub) => (hub = connectedHub));
  const [connected, extra] = await Promise.allSettled([connecting, besides]);
  try {
    if (interrupted !== undefined) {
      await hub?.close({ terminate: true });
      process.exit(interrupted);
    }
    if (connected.status === "rejected") throw connected.reason;
    if (extra.status === "rejected") throw extra.reason;
    const needed = only === undefined ? undefined : connected.value.servers()[0];
    if (needed && needed.status !== "connected") throw new Error(unavailable(needed));
    if ((options.warnFailures ?? true) && !options.background) {
      for (const state of connected.value.servers()) {
        if (state.status === "failed") warn(unavailable(state), env);
      }
    }
    // In the background the servers have not listed their tools yet.
    if (!options.background) {
      for (const line of unmatchedToolNames(connected.value, loaded.config, only === undefined && some === undefined)) warn(`${loaded.path ?? "config"}: ${line}`, env);
      ToolOwners.open(env)?.remember(loaded.path, loaded.config.mcpServers, connected.value.servers(), connected.value.tools());
    }
    started = true;
    if (options.leaveSigint) process.off("SIGINT", onSignal);
    const opened: HubHandle<T> = {
      hub: connected.value,
      config: loaded.config,
      signal: controller.signal,
      ready,
      alongside: extra.value,
      interruptedWith: () => interrupted,
      close: async () => {
        await connected.value.close({ terminate: interrupted !== undefined });
        release();
      },
    };
    if (loaded.path !== undefined) opened.configPath = loaded.path;
    return opened;
  } catch (error) {
    await hub?.close();
    release();
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

/** SIGHUP: the terminal closed (or `tmux kill-session`); handled as SIGTERM is. */
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
const EXIT_CODES: Partial<Record<NodeJS.Signals, number>> = {
  SIGINT: ExitCode.interrupted,
  SIGTERM: ExitCode.terminated,
  SIGHUP: ExitCode.hangup,
};

/** Opens the hub, runs `work`, and closes the hub whatever happens (a signal: see openHub). */
export async function withHub<T>(options: OpenHubOptions, work: (opened: OpenedHub) => Promise<T>): Promise<T> {
  const opened = await openHub(options);
  try {
    return await work(opened);
  } finally {
    await opened.close();
  }
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

function onlyServer(servers: Record<string, ServerConfig>, name: string): Record<string, ServerConfig> {
  const config = servers[name];
  if (config === undefined) throw new UsageError(`unknown server "${name}"; servers: ${Object.keys(servers).join(", ") || "none"}`);
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
