/**
 * TEST INFRASTRUCTURE ONLY: `toolbridge chat` in a real terminal (tmux) against a scripted
 * vLLM, for the end-to-end tests of the chat. `useChatTerminal()` (at a test file's top level)
 * gives each file a private home directory and, after each test, closes the terminal and the
 * server and checks that the chat left no process behind.
 *
 *   useChatTerminal();
 *   const s = await vllm([{ text: "Hello." }]);
 *   const t = await chat(s);
 *   await t.type("hi"); await t.press("Enter");
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { childPids, isAlive } from "./processes.js";
import { Tmux } from "./tmux.js";
import { startVllmServer, type VllmReply, type VllmServer, type VllmServerOptions } from "./vllm-server.js";

export const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
export const PROMPT = /message, or \/help/;

/** The test file's home directory (HOME, the working directory, the state directory's parent). */
export let home: string;
/** A config with the bundled time server only, trusted. */
export let timeOnly: string;
let server: VllmServer | undefined;
let term: Tmux | undefined;
let seenPids: number[] = [];

export function useChatTerminal(): void {
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), "toolbridge-chat-tmux-"));
    timeOnly = join(home, "time-only.json");
    writeFileSync(timeOnly, JSON.stringify({ mcpServers: { time: { command: process.execPath, args: [CLI, "serve", "time"], trust: true } } }));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  afterEach(async () => {
    await term?.close();
    term = undefined;
    await server?.close();
    server = undefined;
    // Closing the terminal hangs the chat up; it stops its servers and exits.
    await waitUntilGone(seenPids);
    for (const pid of seenPids) expect(isAlive(pid), `process ${pid} left behind`).toBe(false);
    seenPids = [];
  });
}

async function waitUntilGone(pids: number[]): Promise<void> {
  const deadline = Date.now() + 5000;
  while (pids.some(isAlive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** A scripted vLLM for this test, closed after it. */
export async function vllm(replies: VllmReply[], options: Omit<VllmServerOptions, "replies"> = {}): Promise<VllmServer> {
  server = await startVllmServer({ ...options, replies });
  return server;
}

/** The terminal's size beyond its width, and variables added to the chat's environment (e.g. BROWSER). */
export interface ChatTerminalOptions {
  rows?: number;
  env?: Record<string, string>;
  /** Run the chat from a shell that, once it exits, reads one line from the terminal and prints `shell read [LINE]`. */
  shellAfter?: boolean;
}

/** What a `shellAfter` shell prints of the line it read once the chat exited. */
export const SHELL_READ = /shell read \[(.*)\]/;

/** Starts the chat in a terminal (100x30 by default) and waits for its prompt. */
export async function chat(s: VllmServer, config = timeOnly, extra: string[] = [], columns = 100, options: ChatTerminalOptions = {}): Promise<Tmux> {
  const command = [process.execPath, CLI, "chat", "--base-url", s.url, "--config", config, ...extra];
  const shell = ["/bin/sh", "-c", `"$0" "$@"; read -r line; printf 'shell read [%s]\\n' "$line"`];
  term = await Tmux.start(options.shellAfter ? [...shell, ...command] : command, {
    // No CI variable: Ink draws only the last frame when it thinks it runs in CI.
    env: { HOME: home, PATH: process.env.PATH, TERM: "xterm-256color", XDG_STATE_HOME: join(home, "state"), LANG: "C.UTF-8", ...options.env },
    cwd: home,
    columns,
    ...(options.rows ? { rows: options.rows } : {}),
  });
  await term.waitFor(PROMPT, "the prompt");
  const pid = await term.pid();
  // Under a `shellAfter` shell, the chat is that shell's child.
  const chatPid = options.shellAfter ? (childPids(pid)[0] ?? pid) : pid;
  seenPids = [chatPid, ...childPids(chatPid)];
  return term;
}
