import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Where servers' stderr goes when the caller names no file: never the user's terminal. */
export function defaultStderrLogFile(): string {
  return join(tmpdir(), "toolbridge", "servers.log");
}

/**
 * One append-only log file shared by every server of a hub, each line tagged with the
 * server. Opened on first write; a file that cannot be written is given up silently,
 * because the in-memory tail still serves the error messages.
 */
export class ServerLog {
  private stream: WriteStream | undefined;
  private broken = false;

  constructor(readonly file: string) {}

  write(server: string, line: string): void {
    if (this.broken) return;
    if (!this.stream) {
      try {
        mkdirSync(dirname(this.file), { recursive: true });
      } catch {
        this.broken = true;
        return;
      }
      this.stream = createWriteStream(this.file, { flags: "a" });
      this.stream.on("error", () => {
        this.broken = true;
      });
    }
    this.stream.write(`${new Date().toISOString()} [${server}] ${line}\n`);
  }

  close(): Promise<void> {
    const stream = this.stream;
    this.stream = undefined;
    if (!stream || this.broken) return Promise.resolve();
    return new Promise((resolve) => stream.end(resolve));
  }
}

/** The last lines a server wrote to stderr, kept for error messages. */
export class StderrTail {
  private readonly kept: string[] = [];
  private partial = "";

  constructor(private readonly max = 20) {}

  /** Adds a chunk; returns the complete lines it finished. */
  push(chunk: string): string[] {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = parts.pop() ?? "";
    if (this.partial.length > 4096) {
      parts.push(this.partial);
      this.partial = "";
    }
    const lines = parts.filter((line) => line.trim() !== "");
    this.kept.push(...lines);
    if (this.kept.length > this.max) this.kept.splice(0, this.kept.length - this.max);
    return lines;
  }

  /** Forgets everything: a new process's failure must not show what an earlier one wrote. */
  clear(): void {
    this.kept.length = 0;
    this.partial = "";
  }

  lines(): string[] {
    return this.partial.trim() === "" ? [...this.kept] : [...this.kept, this.partial].slice(-this.max);
  }

  /** The last few lines as one line, for a one-line error. */
  summary(count = 3): string {
    return this.lines()
      .slice(-count)
      .map((line) => (line.length > 200 ? `${line.slice(0, 200)}…` : line.trim()))
      .join(" | ");
  }
}
