import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { childPids, isAlive } from "./processes.js";
import { Tmux } from "./tmux.js";
import { startVllmServer, type VllmReply, type VllmServer } from "./vllm-server.js";

/** What a test file of `toolbridge chat` in tmux works with. */
export interface ChatTerminalFixture {
  /** The file's private home (HOME; the state directory is under it); the chat's working directory. */
  readonly home: string;
  /** A config with only the bundled time server, trusted. */
  readonly timeOnly: string;
  /** A scripted model server, closed after the test. */
  vllm(replies: VllmReply[]): Promise<VllmServer>;
  /** Starts the chat in a terminal of `columns` x 30 and waits for its prompt; closed after the test. */
  chat(s: VllmServer, config?: string, extra?: string[], columns?: number): Promise<Tmux>;
}

export const CHAT_PROMPT = /message, or \/help/;

/**
 * Registers the file's hooks: a private home made before and removed after, and after each
 * test the terminal and the model server closed and every process the chat started checked gone.
 */
export function useChatTerminal(cli: string): ChatTerminalFixture {
  let home = "";
  let timeOnly = "";
  let server: VllmServer | undefined;
  let term: Tmux | undefined;
  let seenPids: number[] = [];

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), "toolbridge-chat-tmux-"));
    timeOnly = join(home, "time-only.json");
    writeFileSync(timeOnly, JSON.stringify({ mcpServers: { time: { command: process.execPath, args: [cli, "serve", "time"], trust: true } } }));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  afterEach(async () => {
    await term?.close();
    term = undefined;
    await server?.close();
    server = undefined;
    // Closing the terminal hangs the chat up; it stops its servers and exits.
    const deadline = Date.now() + 5000;
    while (seenPids.some(isAlive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const pid of seenPids) expect(isAlive(pid), `process ${pid} left behind`).toBe(false);
    seenPids = [];
  });

  return {
    get home() {
      return home;
    },
    get timeOnly() {
      return timeOnly;
    },
    async vllm(replies) {
      server = await startVllmServer({ replies });
      return server;
    },
    async chat(s, config = timeOnly, extra = [], columns = 100) {
      term = await Tmux.start([process.execPath, cli, "chat", "--base-url", s.url, "--config", config, ...extra], {
        // No CI variable: Ink draws only the last frame when it thinks it runs in CI.
        env: { HOME: home, PATH: process.env.PATH, TERM: "xterm-256color", XDG_STATE_HOME: join(home, "state"), LANG: "C.UTF-8" },
        cwd: home,
        columns,
      });
      await term.waitFor(CHAT_PROMPT, "the prompt");
      const pid = await term.pid();
      seenPids = [pid, ...childPids(pid)];
      return term;
    },
  };
}
