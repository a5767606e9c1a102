import { loadConfig, type ResolvedConfig } from "../config/load.js";
import { userOAuthDir } from "../config/locate.js";
import type { ServerConfig } from "../config/schema.js";
import { HubError } from "../mcp/errors.js";
import { Hub } from "../mcp/hub.js";
import type { ServerState } from "../mcp/types.js";
import { errorLine, ExitCode, UsageError, warn } from "./errors.js";
import { openInBrowser } from "./open-browser.js";

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
  /** Log in through the browser to servers that ask for it; default: when on a terminal. */
  login?: boolean;
}

export interface OpenedHub {
  hub: Hub;
  config: ResolvedConfig;
  /** The config file read; undefined when the built-in default is in use. */
  configPath?: string;
  /** Aborted by SIGINT / SIGTERM: pass it to calls so that servers hear of the cancellation. */
  signal: AbortSignal;
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
    const code = signal === "SIGINT" ? ExitCode.interrupted : ExitCode.terminated;
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
    process.off("exit", onExit);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("exit", onExit);
  const [connected, extra] = await Promise.allSettled([
    Hub.connect(servers, { oauthDir: userOAuthDir(env) }).then((connectedHub) => (hub = connectedHub)),
    besides,
  ]);
  try {
    if (interrupted !== undefined) {
      await hub?.close();
      process.exit(interrupted);
    }
    if (connected.status === "rejected") throw connected.reason;
    if (extra.status === "rejected") throw extra.reason;
    if (options.login ?? (process.stdin.isTTY && process.stderr.isTTY)) await logInWhereAsked(connected.value, env);
    const needed = options.only === undefined ? undefined : connected.value.servers()[0];
    if (needed && needed.status !== "connected") throw new Error(unavailable(needed));
    if (options.warnFailures ?? true) {
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

/**
 * The browser login, one server after the other, for each server that asks for one: at its first
 * use, and in chat after a turn in which a server wanted a new login (a refresh that failed, more scope).
 */
export async function logInWhereAsked(hub: Hub, env: Readonly<Record<string, string | undefined>>): Promise<void> {
  for (const state of hub.servers()) {
    if (!state.needsLogin) continue;
    await hub.login(state.name, (url) => openInBrowser(state.name, url, env)).catch((error: unknown) => {
      warn(`could not log in to server "${state.name}": ${errorLine(error)}`, env);
    });
  }
}

function unavailable(state: ServerState): string {
  if (state.needsLogin) return `server "${state.name}" needs login: run toolbridge auth login ${state.name}`;
  if (state.status === "failed") return `server "${state.name}" failed to start: ${state.error ?? "unknown error"}`;
  return `server "${state.name}" is ${state.status}`;
}
