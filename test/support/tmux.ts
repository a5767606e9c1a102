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
import { childPids } from "./processes.js";

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
/** What the pane's shell prints after the program, with its exit status. */
const EXIT_MARK = "[toolbridge-test exited";
const EXIT_STATUS = /\[toolbridge-test exited (\d+)\]/g;

export class Tmux {
  private constructor(private readonly socket: string) {}

  static async start(command: string[], options: TmuxOptions = {}): Promise<Tmux> {
    const socket = `toolbridge-test-${process.pid}-${++counter}`;
    const term = new Tmux(socket);
    const env = Object.entries(options.env ?? {})
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([name, value]) => `${name}=${shellQuote(value)}`);
    // `env -i` so the command sees exactly the environment given, as the test states it. The
    // shell around it prints the exit status: under load tmux can miss reaping the program (it
    // stays a zombie and the pane never has a status), while the shell's own wait never misses.
    const shell = [...["env", "-i", ...env, ...command.map(shellQuote)], ";", "printf", shellQuote(`\n${EXIT_MARK} %d]\n`), '"$?"'].join(" ");
    // One tmux command line, so the pane is kept (to read the status) even if the program ends at once.
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

  /** Pastes a file's contents as `paste` does: for a paste too large for a command line (a megabyte). */
  async pasteFile(file: string): Promise<void> {
    await this.tmux("load-buffer", "-b", "t", file);
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

  /** The screen and the scrollback with their colours and styles, as escape sequences (tmux's own rendering of them). */
  async styledHistory(): Promise<string> {
    const { stdout } = await this.tmux("capture-pane", "-p", "-e", "-t", "0", "-S", "-");
    return stdout;
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
      const status = [...(await this.history()).matchAll(EXIT_STATUS)].at(-1)?.[1];
      if (status !== undefined) return Number(status);
      if (Date.now() > deadline) throw new Error(`timed out waiting for the program to exit; the terminal shows:\n${await this.history()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The program's process id (to find what it started): the one child of the pane's shell. */
  async pid(): Promise<number> {
    const { stdout } = await this.tmux("display-message", "-p", "-t", "0", "#{pane_pid}");
    const shell = Number(stdout.trim());
    const deadline = Date.now() + WAIT_LIMIT_MS;
    for (;;) {
      const [child] = childPids(shell);
      if (child !== undefined) return child;
      if (Date.now() > deadline) throw new Error("the program did not start in the terminal");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
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
