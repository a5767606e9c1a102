/** One JSON object per line: what log collectors read without a parser of ours. */
export type LogLevel = "info" | "warn" | "error";

export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
}

/**
 * Writes to `out` (stderr for the command); never passed a key, only a key's label. The lines
 * of one turn of the event loop go out together in one write once that turn's work is done
 * (stderr is a synchronous write on a pipe or file): a request's log lines are written after
 * its answer, not before the answer's last bytes.
 */
export function jsonLogger(out: { write(text: string): unknown }): Logger {
  let pending: string[] = [];
  const flush = () => {
    const text = pending.join("");
    pending = [];
    out.write(text);
  };
  return {
    log(level, message, fields = {}) {
      if (pending.length === 0) setImmediate(flush);
      pending.push(`${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields })}\n`);
    },
  };
}

export const silentLogger: Logger = { log: () => undefined };
