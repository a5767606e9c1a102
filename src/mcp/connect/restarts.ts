import { setTimeout as sleep } from "node:timers/promises";
import type { Client } from "@modelcontextprotocol/client";
import { HubError } from "../errors.js";
import type { ServerState } from "../types.js";

/** Consecutive restarts without one successful request in between before the hub gives up, unless the config says. */
export const DEFAULT_MAX_RESTARTS = 5;
export const RESTART_BACKOFF_MS = 1000;
const MAX_RESTART_DELAY_MS = 30_000;

/** What the restarts need of their connection. */
export interface RestartsHost {
  readonly name: string;
  readonly state: ServerState;
  /** The wait before the first restart after a drop; each next one waits twice as long, at most MAX_RESTART_DELAY_MS. */
  readonly backoffMs: number;
  maxRestarts(): number;
  /** One start: connects and loads the lists; never rejects (a failure is the state's). */
  attempt(): Promise<void>;
  /** The client, while the server is connected. */
  live(): Client | undefined;
  /** A restart is about to be tried. */
  restarting(): void;
  /** Back after a restart, on `client`: calls wait until this ends. */
  restarted(client: Client): Promise<void>;
  /** Left down for good. */
  leftDown(): void;
}

/**
 * One server's start and its restarts: a stdio server that died is started again, and a remote one whose connection
 * dropped reconnected, with backoff, until maxRestarts tries in a row (without a request answered between) failed;
 * then it is left down.
 */
export class Restarts {
  /** The start or restarts under way. */
  private starting: Promise<void> | undefined;
  private everConnected = false;
  private failures = 0;
  private gaveUp = false;
  /** Aborted by stop(): a restart's wait ends at once. */
  private readonly stopper = new AbortController();

  constructor(private readonly host: RestartsHost) {}

  /** Whether the connection is being closed: nothing starts again. */
  get stopped(): boolean {
    return this.stopper.signal.aborted;
  }

  /** Whether a start or a restart is under way. */
  get busy(): boolean {
    return this.starting !== undefined;
  }

  /** The first start, or the one under way. */
  start(): Promise<void> {
    this.starting ??= this.host.attempt().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** The server connected (so a drop later is restarted). */
  connected(): void {
    this.everConnected = true;
  }

  /** A request was answered: the restarts in a row start over. */
  answered(): void {
    this.failures = 0;
  }

  stop(): void {
    this.stopper.abort();
  }

  /** Settles when the start or restarts under way (if any) have ended: the server is back, or left down. */
  settled(): Promise<void> {
    return this.starting ?? Promise.resolve();
  }

  /** The client of a live server, restarting a stdio server that died or reconnecting a remote one (bounded, with backoff). */
  async ready(): Promise<Client> {
    const { name, state } = this.host;
    for (;;) {
      if (this.stopped) throw new HubError("closed", "the hub was closed", { server: name });
      if (this.starting) {
        await this.starting;
        continue;
      }
      const live = this.host.live();
      if (live) return live;
      if (state.status === "disabled") {
        throw new HubError("server-unavailable", `server "${name}" is disabled in the config`, { server: name });
      }
      if (!this.everConnected || this.gaveUp || this.failures >= this.host.maxRestarts()) {
        if (this.everConnected && !this.gaveUp) this.giveUp();
        throw new HubError("server-unavailable", `server "${name}" is unavailable: ${state.error ?? state.status}`, {
          server: name,
        });
      }
      this.starting = this.restart().finally(() => {
        this.starting = undefined;
      });
    }
  }

  /** Whether a connection that ended is started again now (`wasLive`: it was connected), not at its next call. */
  recovers(wasLive: boolean): boolean {
    return wasLive && !this.starting && !this.gaveUp && this.host.maxRestarts() > 0;
  }

  /**
   * Starts again, at once and with backoff, a server whose live connection dropped, until it is back or maxRestarts
   * tries in a row failed; its tools stay listed meanwhile (a call waits for the restart), and go when it is left down.
   */
  recover(): void {
    this.starting = this.recoverLoop().finally(() => {
      this.starting = undefined;
    });
  }

  private async recoverLoop(): Promise<void> {
    while (!this.stopped && this.failures < this.host.maxRestarts()) {
      await this.restart();
      if (this.host.state.status === "connected") return;
    }
    if (!this.stopped) this.giveUp();
  }

  private giveUp(): void {
    this.gaveUp = true;
    this.host.leftDown();
  }

  private async restart(): Promise<void> {
    const backoff = Math.min(this.host.backoffMs * 2 ** Math.min(this.failures, 16), MAX_RESTART_DELAY_MS);
    // Between half the backoff and all of it: clients of one server that went down do not all come back at once.
    const delay = backoff / 2 + Math.random() * (backoff / 2);
    this.failures++;
    await sleep(delay, undefined, { signal: this.stopper.signal }).catch(() => undefined);
    if (this.stopped) return;
    this.host.restarting();
    await this.host.attempt();
    const client = this.host.live();
    if (!client) return;
    await this.host.restarted(client);
  }
}
