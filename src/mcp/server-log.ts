import { closeSync, constants, fchmodSync, fstatSync, openSync, renameSync, writeSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { checkPrivateFile, NO_FOLLOW, privateDirectory } from "../config/private-files.js";

type Env = Readonly<Record<string, string | undefined>>;

/** One file per user, rotated to `servers.log.1` past this size: two files at most. */
const DEFAULT_MAX_BYTES = 10 * 2 ** 20;
/** A line longer than this is cut: one flooding server must not fill the file in one line. */
const MAX_LINE_CHARS = 8192;

/**
 * Where servers' stderr goes when the caller names no file: never the user's terminal, and
 * never a directory other users can read. The user's state directory
 * (`$XDG_STATE_HOME/toolbridge`, else `~/.local/state/toolbridge`), or without a home
 * `$TMPDIR/toolbridge-$UID`.
 */
export function defaultStderrLogFile(env: Env = process.env): string {
  const home = safeHome();
  const state = env.XDG_STATE_HOME?.startsWith("/") ? env.XDG_STATE_HOME : home ? join(home, ".local", "state") : undefined;
  const dir = state ? join(state, "toolbridge") : join(tmpdir(), `toolbridge-${process.getuid?.() ?? "user"}`);
  return join(dir, "servers.log");
}

/**
 * The log every server of a hub writes to, each line tagged with toolbridge's pid and the
 * server, so that several toolbridge processes sharing the file can be told apart. The
 * directory must be the user's, 0700, in a tree no one else can write (config/private-files.ts); the file is opened without
 * following a symlink, kept at 0600 and rotated by size. A file that cannot be used safely
 * is given up silently: the in-memory tail still serves the error messages.
 */
export class ServerLog {
  private fd: number | undefined;
  private size = 0;
  private broken = false;

  constructor(
    readonly file: string,
    private readonly maxBytes = DEFAULT_MAX_BYTES,
  ) {}

  write(server: string, line: string): void {
    if (this.broken) return;
    const text = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… (${line.length - MAX_LINE_CHARS} more characters)` : line;
    const entry = Buffer.from(`${new Date().toISOString()} pid ${process.pid} [${server}] ${text}\n`);
    try {
      if (this.fd !== undefined && this.size + entry.length > this.maxBytes) this.rotate();
      this.fd ??= this.open();
      writeSync(this.fd, entry);
      this.size += entry.length;
    } catch {
      this.broken = true;
      this.closeFd();
    }
  }

  close(): Promise<void> {
    this.closeFd();
    return Promise.resolve();
  }

  private open(): number {
    privateDirectory(dirname(this.file));
    const fd = openSync(this.file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW, 0o600);
    try {
      const stat = fstatSync(fd);
      if (checkPrivateFile(stat, this.file).narrow) fchmodSync(fd, 0o600);
      this.size = stat.size;
      return fd;
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** The full file becomes `<file>.1` (replacing the one before); writing goes on in a new file. */
  private rotate(): void {
    this.closeFd();
    renameSync(this.file, `${this.file}.1`);
    this.size = 0;
  }

  private closeFd(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
    this.fd = undefined;
  }
}

function safeHome(): string | undefined {
  try {
    return homedir() || undefined;
  } catch {
    return undefined;
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
