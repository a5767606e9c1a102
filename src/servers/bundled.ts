import type { ServerFactory } from "./http.js";
import { createMathServer } from "./math/server.js";
import type { BundledServerName } from "./names.js";
import { createTimeServer } from "./time/server.js";

/** The servers `toolbridge serve NAME` can run. */
export const BUNDLED_SERVERS: Record<BundledServerName, ServerFactory> = { time: createTimeServer, math: createMathServer };
