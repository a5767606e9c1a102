/** One JSON object per line: what log collectors read without a parser of ours. */
export type LogLevel = "info" | "warn" | "error";

export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
}

/** Writes to `out` (stderr for the command); never passed a key, only a key's label. */
export function jsonLogger(out: { write(line: string): unknown }): Logger {
  return {
    log(level, message, fields = {}) {
      out.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields })}\n`);
    },
  };
}

export const silentLogger: Logger = { log: () => undefined };
