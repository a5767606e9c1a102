import type { ServerFactory } from "./http.js";
import { createMathServer } from "./math/server.js";
import { createTimeServer } from "./time/server.js";

/** The servers `toolbridge serve NAME` can run. */
export const BUNDLED_SERVERS = { time: createTimeServer, math: createMathServer } as const satisfies Record<string, ServerFactory>;

export type BundledServerName = keyof typeof BUNDLED_SERVERS;

export function isBundledServerName(name: string): name is BundledServerName {
  return Object.hasOwn(BUNDLED_SERVERS, name);
}
