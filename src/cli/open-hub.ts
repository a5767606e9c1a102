import type { ResolvedConfig } from "../config/load.js";
import { HubError } from "../mcp/errors.js";
import type { Hub } from "../mcp/hub.js";
import { openHost, type OpenedHost, type OpenHostOptions } from "../host/open-host.js";
import { ExitCode, warn } from "./errors.js";
import { sayStopping } from "./render/startup-status.js";

export interface OpenHubOptions extends Omit<OpenHostOptions, "signal" | "warn" | "onHub"> {
  /**
   * What the first SIGINT / SIGTERM / SIGHUP does once the servers are up: "exit" (default)
   * aborts `signal`, stops them and exits 130 / 143 / 129; "abort" only aborts `signal`, for
   * a caller that winds down itself. Either way a second signal kills the servers and exits.
   */
  onSignal?: "exit" | "abort";
  /** Once the servers are up, leave SIGINT to the caller (chat: Ctrl-C cancels an answer, not the program). */
  leaveSigint?: boolean;
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

export interface HubHandle<T> extends OpenedHub, Pick<OpenedHost<T>, "alongside"> {
  /** The exit code of the signal that aborted `signal` (130 / 143 / 129), if one did. */
  interruptedWith(): number | undefined;
  /** Stops the servers and removes the signal and exit handlers. */
  close(): Promise<void>;
}

/**
 * The host's start (src/host/open-host.ts) on a terminal: its warnings on stderr, and the
 * process's signals. A signal while the servers start stops them at once and exits 130 /
 * 143 / 129 (SIGHUP: a closed terminal); a process 'exit' handler kills what is left as a
 * last resort, and the servers' watchdog what a kill outright leaves, so no server outlives us.
 */
export async function openHub<T = undefined>(options: OpenHubOptions, alongside?: (config: ResolvedConfig) => Promise<T>): Promise<HubHandle<T>> {
  const { onSignal: signalAction = "exit", leaveSigint, ...hostOptions } = options;
  const env = options.env ?? process.env;
  const controller = new AbortController();
  let hub: Hub | undefined;
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
    // While starting, this stops the servers and ends the start, which then exits (below).
    controller.abort(new HubError("cancelled", `interrupted by ${signal}`));
    if (started && signalAction === "exit") void hub?.close({ terminate: true }).finally(() => process.exit(code));
  };
  const onExit = () => hub?.closeSync();
  const release = () => {
    for (const signal of SIGNALS) process.off(signal, onSignal);
    process.off("exit", onExit);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  process.on("exit", onExit);
  let opened: OpenedHost<T>;
  try {
    opened = await openHost({ ...hostOptions, env, signal: controller.signal, warn: (line) => warn(line, env), onHub: (made) => (hub = made) }, alongside);
  } catch (error) {
    release();
    if (interrupted !== undefined) process.exit(interrupted);
    throw error;
  }
  started = true;
  if (leaveSigint) process.off("SIGINT", onSignal);
  return {
    ...opened,
    signal: controller.signal,
    interruptedWith: () => interrupted,
    close: async () => {
      await opened.hub.close({ terminate: interrupted !== undefined });
      release();
    },
  };
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
