import type { Logger } from "./log.js";
import type { GatewayState, LimitSettings } from "./state.js";
import { openEmbeddedState } from "./state-embedded.js";

export interface StateOptions {
  /** `redis://…` or `rediss://…` (shared by replicas), `file:/path`, `memory:`; absent: `defaultFile`. */
  store?: string;
  /** The embedded store's file when no store is named (the state directory's). */
  defaultFile: string;
  ttlSeconds: number;
  limits: LimitSettings;
  log: Logger;
}

/** The state a store URL names. Redis's client is loaded only when Redis is asked for. */
export async function openGatewayState(options: StateOptions): Promise<GatewayState> {
  const { store, ttlSeconds, limits } = options;
  if (store === undefined) return openEmbeddedState({ file: options.defaultFile, ttlSeconds, limits });
  if (/^rediss?:\/\//i.test(store)) {
    const { openRedisState } = await import("./state-redis.js");
    return openRedisState({ url: store, ttlSeconds, limits, log: options.log });
  }
  if (store === "memory:") return openEmbeddedState({ ttlSeconds, limits });
  if (store.startsWith("file:")) {
    const file = store.startsWith("file://") ? new URL(store).pathname : store.slice("file:".length);
    if (!file.startsWith("/")) throw new StoreUrlError(`"${store}": a file store needs an absolute path (file:/path/to/store.db)`);
    return openEmbeddedState({ file, ttlSeconds, limits });
  }
  throw new StoreUrlError(`"${store}": expected redis://host:port, rediss://host:port, file:/path or memory:`);
}

/** A store URL that names no store; the message says what is accepted. */
export class StoreUrlError extends Error {}
