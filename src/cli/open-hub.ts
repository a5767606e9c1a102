import { loadConfig, type ResolvedConfig } from "../config/load.js";
import type { ServerConfig } from "../config/schema.js";
import { HubError } from "../mcp/errors.js";
import { Hub } from "../mcp/hub.js";
import type { ServerState } from "../mcp/types.js";
import { ExitCode, UsageError, warn } from "./errors.js";

export interface OpenHubOptions {
  /** `--config FILE`. */
  config?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Print one line on stderr per server that failed to connect (default true). */
  warnFailures?: boolean;
  /** Start only this server (`--server`); it must exist and connect, or the command fails. */
  only?: string;
}

export interface OpenedHub {
  hub: Hub;
  config: ResolvedConfig;
  /** The config file read; undefined when the built-in default is in use. */
  configPath?: string;
  /** Aborted by SIGINT / SIGTERM: pass it to calls so that servers hear of the cancellation. */
  signal: AbortSignal;
}

/**
 * Loads the config, connects its servers, runs `work`, and closes the hub whatever
 * happens: on return, on error, and on SIGINT / SIGTERM (exit 130 / 143 once every
 * server is stopped; a second signal stops them with SIGKILL and exits at once). A
 * process 'exit' handler kills what is left as a last resort, so no server outlives us.
 */
export async function withHub<T>(options: OpenHubOptions, work: (opened: OpenedHub) => Promise<T>): Promise<T> {
  const env = options.env ?? process.env;
  const loaded = loadConfig({ file: options.config, cwd: options.cwd ?? process.cwd(), env });
  const controller = new AbortController();
  let hub: Hub | undefined;
  let interrupted: number | undefined;

  const onSignal = (signal: NodeJS.Signals) => {
    const code = signal === "SIGINT" ? ExitCode.interrupted : ExitCode.terminated;
    if (interrupted !== undefined) {
      hub?.closeSync();
      process.exit(code);
    }
    interrupted = code;
    controller.abort(new HubError("cancelled", `interrupted by ${signal}`));
    // While connecting there is no hub yet: it is closed as soon as connect() returns.
    if (hub) void hub.close().finally(() => process.exit(code));
  };
  const onExit = () => hub?.closeSync();
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("exit", onExit);
  try {
    hub = await Hub.connect(options.only === undefined ? loaded.config.mcpServers : onlyServer(loaded.config.mcpServers, options.only));
    if (interrupted !== undefined) {
      await hub.close();
      process.exit(interrupted);
    }
    const needed = options.only === undefined ? undefined : hub.servers()[0];
    if (needed && needed.status !== "connected") throw new Error(unavailable(needed));
    if (options.warnFailures ?? true) {
      for (const state of hub.servers()) {
        if (state.status === "failed") warn(unavailable(state), env);
      }
    }
    const opened: OpenedHub = { hub, config: loaded.config, signal: controller.signal };
    if (loaded.path !== undefined) opened.configPath = loaded.path;
    return await work(opened);
  } finally {
    await hub?.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    process.off("exit", onExit);
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
