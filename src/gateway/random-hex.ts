import { randomFillSync } from "node:crypto";

/** Random bytes for ids, drawn from the system's source 4 KiB at a time (as Node's randomUUID does): one call per hundreds of ids, not one each. */
const pool = Buffer.alloc(4096);
let used = pool.length;

/** `bytes` random bytes as hex, for the ids of completions, messages and responses. */
export function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const hex = pool.toString("hex", used, used + bytes);
  used += bytes;
  return hex;
}
