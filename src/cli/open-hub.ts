import { loadConfig, type ResolvedConfig } from "../config/load.js";
import type { ServerConfig } from "../config/schema.js";
import { HubError } from "../mcp/errors.js";
import { Hub } from "../mcp/hub.js";
import type { ServerState } from "../mcp/types.js";
import { ExitCode, UsageError, warn } from "./errors.js";

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
   * What the first SIGINT / SIGTERM does once the servers are up: "exit" (default) stops
   * them and exits 130 / 143; "abort" only aborts `signal`, for a caller that winds down
   * itself. Either way a second signal stops the servers at once and exits.
   */
  onSignal?: "exit" | "abort";
  /** Once the servers are up, leave SIGINT to the caller (chat: Ctrl-C cancels an answer, not the program). */
  leaveSigint?: boolean;
  /**
   * Return as soon as the config is read (and `alongside` done), the servers still
   * connecting: `ready` says when they all have; failures are not warned about (the caller
   * shows each server's state). The chat's prompt opens at once this way.
   */
  background?: boolean;
}

export interface OpenedHub {
  hub: Hub;
  config: ResolvedConfig;
  /** The config file read; undefined when the built-in default is in use. */
  configPath?: string;
  /** Aborted by SIGINT / SIGTERM: pass it to calls so that servers hear of the cancellation. */
  signal: AbortSignal;
  /** Settles when every server has connected or failed (at once unless `background`). */
  ready: Promise<void>;
}

export interface HubHandle<T> extends OpenedHub {
  /** What `alongside` gave. */
  alongside: T;
  /** The exit code of the signal that aborted `signal` (130 / 143), if one did. */
  interruptedWith(): number | undefined;
  /** Stops the servers and removes the signal and exit handlers. */
  close(): Promise<void>;
}

/**
 * Loads the config and connects its servers, warning about those that failed, while
 * `alongside` (say, asking the model server which model it serves) runs with the config.
 * A signal while they start stops them and exits 130 / 143; a process 'exit' handler kills
 * what is left as a last resort, so no server outlives us.
 */
export async function openHub<T = undefined>(options: OpenHubOptions, alongside?: (config: ResolvedConfig) => Promise<T>): Promise<HubHandle<T>> {
  const env = options.env ?? process.env;
  const loaded = loadConfig({ file: options.config, cwd: options.cwd ?? process.cwd(), env });
  const servers = options.only === undefined ? loaded.config.mcpServers : onlyServer(loaded.config.mcpServers, options.only);
  // Started first, so that what it throws at once (a bad flag) comes before any server starts.
  const besides = alongside ? alongside(loaded.config) : Promise.resolve(undefined as T);
  const controller = new AbortController();
  let hub: Hub | undefined;
  let started = false;
  let interrupted: number | undefined;

  const onSignal = (signal: NodeJS.Signals) => {
    // SIGHUP: the terminal was closed (128 + 1, as shells report it).
    const code = signal === "SIGINT" ? ExitCode.interrupted : signal === "SIGHUP" ? 129 : ExitCode.terminated;
    if (interrupted !== undefined) {
      hub?.closeSync();
      process.exit(code);
    }
    interrupted = code;
    controller.abort(new HubError("cancelled", `interrupted by ${signal}`));
    // While starting, the hub is closed as soon as everything has settled.
    if (started && (options.onSignal ?? "exit") === "exit") void hub?.close().finally(() => process.exit(code));
  };
  const onExit = () => hub?.closeSync();
  const release = () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    process.off("SIGHUP", onSignal);
    process.off("exit", onExit);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onSignal);
  process.on("exit", onExit);
  let ready = Promise.resolve();
  const connecting = (): Promise<Hub> => {
    if (!options.background) return Hub.connect(servers).then((connectedHub) => (hub = connectedHub));
    const start = Hub.start(servers);
    ready = start.ready;
    return Promise.resolve((hub = start.hub));
  };
  const [connected, extra] = await Promise.allSettled([connecting(), besides]);
  try {
    if (interrupted !== undefined) {
      await hub?.close();
      process.exit(interrupted);
    }
    if (connected.status === "rejected") throw connected.reason;
    if (extra.status === "rejected") throw extra.reason;
    const needed = options.only === undefined ? undefined : connected.value.servers()[0];
    if (needed && needed.status !== "connected") throw new Error(unavailable(needed));
    if ((options.warnFailures ?? true) && !options.background) {
      for (const state of connected.value.servers()) {
        if (state.status === "failed") warn(unavailable(state), env);
      }
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
        await connected.value.close();
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

/** Opens the hub, runs `work`, and closes the hub whatever happens (a signal: see openHub). */
export async function withHub<T>(options: OpenHubOptions, work: (opened: OpenedHub) => Promise<T>): Promise<T> {
  const opened = await openHub(options);
  try {
    return await work(opened);
  } finally {
    await opened.close();
  }
}

function onlyServer(servers: Record<string, ServerConfig>, name: string): Record<string, ServerConfig> {
  const config = servers[name];
  if (config === undefined) throw new UsageError(`unknown server "${name}"; servers: ${Object.keys(servers).join(", ") || "none"}`);
  return { [name]: config };
}

function unavailable(state: ServerState): string {
  if (state.status === "failed") return `server "${state.name}" failed to start: ${state.error ?? "unknown error"}`;
  return `server "${state.name}" is ${state.status}`;
}
