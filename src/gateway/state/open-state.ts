import type { Logger } from "../log.js";
import type { GatewayState, LimitSettings, StoreBudget } from "./state.js";
import { openEmbeddedState } from "./embedded.js";

export interface StateOptions {
  /** `redis://…` or `rediss://…` (shared by replicas), `file:/path` (a directory), `memory:`; absent: `defaultDirectory`. */
  store?: string;
  /** The embedded store's directory when no store is named (the state directory's). */
  defaultDirectory: string;
  ttlSeconds: number;
  limits: LimitSettings;
  /** Absent: DEFAULT_STORE_BUDGET. Redis takes only the per-key share, as the largest record it stores or reads. */
  budget?: StoreBudget;
  log: Logger;
}

/** The state a store URL names. Redis's client is loaded only when Redis is asked for. */
export async function openGatewayState(options: StateOptions): Promise<GatewayState> {
  const { store, ttlSeconds, limits, log } = options;
  const budget = options.budget ? { budget: options.budget } : {};
  if (store === undefined) return openEmbeddedState({ directory: options.defaultDirectory, ttlSeconds, limits, ...budget, log });
  if (/^rediss?:\/\//i.test(store)) {
    const { openRedisState } = await import("./redis.js");
    return openRedisState({ url: store, ttlSeconds, limits, ...budget, log });
  }
  if (store === "memory:") return openEmbeddedState({ ttlSeconds, limits, ...budget, log });
  if (store.startsWith("file:")) {
    const directory = store.startsWith("file://") ? new URL(store).pathname : store.slice("file:".length);
    if (!directory.startsWith("/")) throw new StoreUrlError(`"${store}": a file store needs an absolute path (file:/path/to/store)`);
    return openEmbeddedState({ directory, ttlSeconds, limits, ...budget, log });
  }
  throw new StoreUrlError(`"${store}": expected redis://host:port, rediss://host:port, file:/path or memory:`);
}

/** A store URL that names no store; the message says what is accepted. */
export class StoreUrlError extends Error {}
