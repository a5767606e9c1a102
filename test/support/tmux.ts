/**
 * TEST INFRASTRUCTURE ONLY: runs a command in a real terminal (tmux) and drives it as a
 * person would: typing, pasting (bracketed, as terminals paste), pressing keys, resizing.
 * Each instance has its own tmux server (`-L`), killed by `close()`, so nothing outlives a test.
 *
 *   const term = await Tmux.start([process.execPath, CLI, "chat", ...], { env, cwd });
 *   await term.waitFor(/message, or \/help/);
 *   await term.type("hello"); await term.press("Enter");
 *   await term.close();
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);
let counter = 0;

export interface TmuxOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  columns?: number;
  rows?: number;
}

/** How long waitFor polls before failing: a bound on a hang, not a measure of speed. */
const WAIT_LIMIT_MS = 20_000;

export class Tmux {
  private constructor(private readonly socket: string) {}

  static async start(command: string[], options: TmuxOptions = {}): Promise<Tmux> {
    const socket = `toolbridge-test-${process.pid}-${++counter}`;
    const term = new Tmux(socket);
    const env = Object.entries(options.env ?? {})
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([name, value]) => `${name}=${shellQuote(value)}`);
    // `env -i` so the command sees exactly the environment given, as the test states it.
    const shell = ["exec", "env", "-i", ...env, ...command.map(shellQuote)].join(" ");
    // One tmux command line, so the pane is kept (to read its exit status) even if the program ends at once.
    await term.tmux("-f", "/dev/null", "new-session", "-d", "-x", String(options.columns ?? 100), "-y", String(options.rows ?? 30), "-c", options.cwd ?? process.cwd(), shell, ";", "set-option", "-g", "remain-on-exit", "on");
    return term;
  }

  /** Types text as keys (literally: `/` and `;` are not tmux commands). */
  async type(text: string): Promise<void> {
    await this.tmux("send-keys", "-t", "0", "-l", text);
  }

  /** Presses keys by tmux name: Enter, Escape, C-c, C-d, C-j, BSpace, Left, Up, Tab. */
  async press(...keys: string[]): Promise<void> {
    for (const key of keys) await this.tmux("send-keys", "-t", "0", key);
  }

  /** Pastes as a terminal does: wrapped in the bracketed-paste markers when the program asked for them. */
  async paste(text: string): Promise<void> {
    await this.tmux("set-buffer", "-b", "t", "--", text);
    await this.tmux("paste-buffer", "-p", "-d", "-b", "t", "-t", "0");
  }

  /** Sends raw bytes, as an exotic terminal might (e.g. the kitty protocol's Shift+Enter). */
  async sendRaw(bytes: string): Promise<void> {
    await this.tmux("send-keys", "-t", "0", "-H", ...[...Buffer.from(bytes)].map((b) => b.toString(16).padStart(2, "0")));
  }

  async resize(columns: number, rows: number): Promise<void> {
    await this.tmux("resize-window", "-t", "0", "-x", String(columns), "-y", String(rows));
  }

  /** The visible screen as text, one row per line, trailing blanks trimmed. */
  async screen(): Promise<string> {
    const { stdout } = await this.tmux("capture-pane", "-p", "-t", "0");
    return stdout.replace(/[ \t]+$/gm, "").replace(/\n+$/, "");
  }

  /** The screen and the scrollback. */
  async history(): Promise<string> {
    const { stdout } = await this.tmux("capture-pane", "-p", "-t", "0", "-S", "-");
    return stdout.replace(/[ \t]+$/gm, "").replace(/\n+$/, "");
  }

  /** The terminal's title (which a program, or a hostile server through it, may have set). */
  async title(): Promise<string> {
    const { stdout } = await this.tmux("display-message", "-p", "-t", "0", "#{pane_title}");
    return stdout.trim();
  }

  /** The cursor's row and column (0-based). */
  async cursor(): Promise<{ row: number; column: number }> {
    const { stdout } = await this.tmux("display-message", "-p", "-t", "0", "#{cursor_y} #{cursor_x}");
    const [row, column] = stdout.trim().split(" ").map(Number);
    return { row: row ?? 0, column: column ?? 0 };
  }

  /** Polls until the screen (with scrollback) satisfies `test`; fails naming what it waited for and what it saw. */
  async waitFor(test: RegExp | ((screen: string) => boolean), what = String(test)): Promise<string> {
    const check = typeof test === "function" ? test : (s: string) => test.test(s);
    const deadline = Date.now() + WAIT_LIMIT_MS;
    for (;;) {
      const seen = await this.history();
      if (check(seen)) return seen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the terminal shows:\n${seen}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Polls until a condition outside the terminal holds (say, the model server got a request). */
  async until(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the terminal shows:\n${await this.history()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Waits for the program to end; its exit status. */
  async exitCode(): Promise<number> {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    for (;;) {
      const { stdout } = await this.tmux("display-message", "-p", "-t", "0", "#{pane_dead} #{pane_dead_status} #{pane_dead_signal}");
      const [dead, status, signal] = stdout.trim().split(/\s+/);
      // tmux may mark the pane dead (its terminal closed) before it has collected the exit status: wait for that too.
      if (dead === "1" && status !== undefined && status !== "") return Number(status);
      if (Date.now() > deadline) {
        if (dead === "1") throw new Error(`the program ended without an exit status (a signal: ${signal || "unknown"})`);
        throw new Error(`timed out waiting for the program to exit; the terminal shows:\n${await this.history()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The program's process id (to find what it started). */
  async pid(): Promise<number> {
    const { stdout } = await this.tmux("display-message", "-p", "-t", "0", "#{pane_pid}");
    return Number(stdout.trim());
  }

  /** Ends the terminal and everything running in it. */
  async close(): Promise<void> {
    await this.tmux("kill-server").catch(() => undefined);
  }

  private tmux(...args: string[]): Promise<{ stdout: string }> {
    return run("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
  }
}

function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
