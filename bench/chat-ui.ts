/**
 * The chat's terminal UI under a long answer, in a real terminal (tmux):
 *   - while an answer streams 10,000 tokens at 100 tokens/s, per tenth of the stream: the
 *     chat process's CPU (share of one core), the frames it draws per second (write calls to
 *     the terminal, from /proc/PID/io), and the delay from a keystroke to its echo in the
 *     input box. Flat means the last tenth costs what the first did (ratio last/first);
 *   - the time from starting `toolbridge chat` to its prompt, with a server that hangs;
 *   - the time from Ctrl-D to the shell reading the next line typed, with the bundled time
 *     server, beside a bare node that exits on Ctrl-D in the same kind of pane;
 *   - the delay from a keystroke to its echo after a 1 MB paste (shown as one label) in the box;
 *   - the time `toolbridge --version` takes.
 * Needs tmux and Linux's /proc. BENCH_CHAT_TOKENS overrides the answer's length.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Tmux } from "../test/support/tmux.js";
import { startVllmServer } from "../test/support/vllm-server.js";
import { median } from "./support/median.js";

const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const HANG = fileURLToPath(new URL("../test/fixtures/servers/hang-on-initialize.mjs", import.meta.url));
const TOKENS = Number(process.env.BENCH_CHAT_TOKENS ?? 10_000);
const TOKEN_DELAY_MS = 10;
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return Number(fields[11]) + Number(fields[12]);
}

function io(pid: number): { writes: number; bytes: number } {
  const text = readFileSync(`/proc/${pid}/io`, "utf8");
  return { writes: Number(/syscw: (\d+)/.exec(text)?.[1] ?? 0), bytes: Number(/wchar: (\d+)/.exec(text)?.[1] ?? 0) };
}

/** Words of up to four letters (one token each), in paragraphs of 60. */
function answer(tokens: number): string {
  const words = ["the", "tool", "call", "ran", "and", "said", "that", "time", "is", "now"];
  let text = "";
  for (let i = 1; i <= tokens; i++) text += words[i % words.length] + (i % 60 === 0 ? "\n\n" : " ");
  return text.trim();
}

async function echoDelay(term: Tmux, marker: string): Promise<number> {
  const start = performance.now();
  await term.type(marker);
  for (;;) {
    if ((await term.screen()).includes(marker)) return performance.now() - start;
  }
}

async function streaming(home: string, config: string): Promise<void> {
  const server = await startVllmServer({ replies: [{ text: answer(TOKENS), chunkDelayMs: TOKEN_DELAY_MS }] });
  const term = await Tmux.start([process.execPath, CLI, "chat", "--base-url", server.url, "--config", config], {
    env: { HOME: home, PATH: process.env.PATH, TERM: "xterm-256color", XDG_STATE_HOME: join(home, "state"), LANG: "C.UTF-8" },
    cwd: home,
    columns: 120,
    rows: 40,
  });
  try {
    await term.waitFor(/message, or \/help/);
    const pid = await term.pid();
    await term.type("go");
    await term.press("Enter");
    await term.until(() => server.chatRequests.length === 1, "the request");
    const seconds = (TOKENS * TOKEN_DELAY_MS) / 1000;
    const slice = seconds / 10;
    const rows: Array<{ tenth: number; cpu: number; fps: number; kbps: number; echoMs: number }> = [];
    for (let tenth = 1; tenth <= 10; tenth++) {
      const t0 = performance.now();
      const c0 = cpuTicks(pid);
      const w0 = io(pid);
      // One keystroke (and its erasure) in the middle of each tenth.
      await new Promise((resolve) => setTimeout(resolve, (slice * 1000) / 2));
      const echoMs = await echoDelay(term, `k${tenth}x`);
      await term.press("C-u");
      const rest = slice * 1000 - (performance.now() - t0);
      if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
      const elapsed = (performance.now() - t0) / 1000;
      const w1 = io(pid);
      rows.push({ tenth, cpu: (cpuTicks(pid) - c0) / TICKS_PER_SECOND / elapsed, fps: (w1.writes - w0.writes) / elapsed, kbps: (w1.bytes - w0.bytes) / 1024 / elapsed, echoMs });
    }
    console.log(`\nchat UI while an answer streams ${TOKENS} tokens at ${1000 / TOKEN_DELAY_MS} tokens/s (tmux, 120x40)`);
    console.log("tenth   CPU (of one core)   writes/s   KiB/s   keystroke→echo ms");
    for (const row of rows) {
      console.log(`${String(row.tenth).padStart(5)}   ${(row.cpu * 100).toFixed(1).padStart(16)}%   ${row.fps.toFixed(1).padStart(8)}   ${row.kbps.toFixed(1).padStart(5)}   ${row.echoMs.toFixed(0).padStart(17)}`);
    }
    const first = rows[0]!;
    const last = rows.at(-1)!;
    console.log(`last/first: CPU ${(last.cpu / first.cpu).toFixed(2)}, writes/s ${(last.fps / first.fps).toFixed(2)}, KiB/s ${(last.kbps / first.kbps).toFixed(2)}, echo ${(last.echoMs / first.echoMs).toFixed(2)}`);
  } finally {
    await term.close();
    await server.close();
  }
}

/** Median keystroke→echo ms of 5 keystrokes typed after a 1 MB paste of 10,000 lines. */
export async function pasteEcho(home: string, config: string): Promise<void> {
  const file = join(home, "paste.txt");
  writeFileSync(file, Array.from({ length: 10_000 }, (_, i) => `line ${i} `.padEnd(99, "x")).join("\n"));
  const server = await startVllmServer({ replies: [] });
  const term = await Tmux.start([process.execPath, CLI, "chat", "--base-url", server.url, "--config", config], {
    env: { HOME: home, PATH: process.env.PATH, TERM: "xterm-256color", XDG_STATE_HOME: join(home, "state"), LANG: "C.UTF-8" },
    cwd: home,
    columns: 120,
    rows: 40,
  });
  try {
    await term.waitFor(/toolbridge chat ·/);
    const start = performance.now();
    await term.pasteFile(file);
    await term.waitFor(/\[pasted [^\]]*10,000 lines\]/, "the paste's label");
    const pasteMs = performance.now() - start;
    const echoes: number[] = [];
    for (let i = 1; i <= 5; i++) echoes.push(await echoDelay(term, ` p${i}x`));
    console.log(`\nchat after a 1 MB paste (10,000 lines): paste→label ${pasteMs.toFixed(0)} ms; keystroke→echo median ${median(echoes).toFixed(0)} ms of 5 (max ${Math.max(...echoes).toFixed(0)} ms)`);
  } finally {
    await term.close();
    await server.close();
  }
}

/** Median ms from starting `command` in a fresh tmux pane until the pane shows `text`, over `runs` starts. */
async function timeToScreen(command: string[], text: string, home: string, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const term = await Tmux.start(command, {
      env: { HOME: home, PATH: process.env.PATH, TERM: "xterm-256color", XDG_STATE_HOME: join(home, "state"), LANG: "C.UTF-8" },
      cwd: home,
    });
    for (;;) if ((await term.screen()).includes(text)) break;
    times.push(performance.now() - start);
    await term.close();
  }
  return median(times);
}

async function promptTime(home: string): Promise<void> {
  const config = join(home, "hanging.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { stuck: { command: process.execPath, args: [HANG] } } }));
  const server = await startVllmServer({ replies: [] });
  try {
    const prompt = "message, or /help";
    const chat = await timeToScreen([process.execPath, CLI, "chat", "--base-url", server.url, "--config", config], prompt, home, 5);
    // The same text printed by a bare Node in the same kind of pane: what starting tmux and Node cost anyway.
    const bare = await timeToScreen([process.execPath, "-e", `console.log(${JSON.stringify(prompt)}); setTimeout(() => {}, 60000)`], prompt, home, 5);
    console.log(`\nchat start to prompt, a server hanging on initialize: median ${chat.toFixed(0)} ms of 5 (goal < 500 ms); a bare node printing it: ${bare.toFixed(0)} ms; chat - bare: ${(chat - bare).toFixed(0)} ms`);
  } finally {
    await server.close();
  }
}

/**
 * Median ms from pressing Ctrl-D in `command` (once it shows `ready`) until the shell that
 * started it has read a line typed right after: what the person waits before their next command.
 */
async function timeToShell(command: string[], ready: string, home: string, runs: number): Promise<number> {
  const times: number[] = [];
  const shell = ["/bin/sh", "-c", `"$0" "$@"; read -r line; printf 'shell read [%s]\\n' "$line"`];
  for (let i = 0; i < runs; i++) {
    const term = await Tmux.start([...shell, ...command], {
      env: { HOME: home, PATH: process.env.PATH, TERM: "xterm-256color", XDG_STATE_HOME: join(home, "state"), LANG: "C.UTF-8" },
      cwd: home,
    });
    try {
      await term.waitFor((screen) => screen.includes(ready), ready);
      // Let the servers finish starting: quitting is measured, not start-up.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const start = performance.now();
      await term.press("C-d");
      await term.type("next");
      await term.press("Enter");
      await term.waitFor(/shell read \[next\]/, "the shell's read");
      times.push(performance.now() - start);
    } finally {
      await term.close();
    }
  }
  return median(times);
}

async function quitTime(home: string, config: string): Promise<void> {
  const server = await startVllmServer({ replies: [] });
  try {
    const chat = await timeToShell([process.execPath, CLI, "chat", "--base-url", server.url, "--config", config], "message, or /help", home, 5);
    const bare = await timeToShell([process.execPath, "-e", `process.stdin.setRawMode(true); console.log("ready"); process.stdin.on("data", (d) => { if (d.includes(4)) process.exit(0); })`], "ready", home, 5);
    console.log(`\nchat quit (Ctrl-D) to the shell reading the next line, time server: median ${chat.toFixed(0)} ms of 5; a bare node quitting on Ctrl-D: ${bare.toFixed(0)} ms; chat - bare: ${(chat - bare).toFixed(0)} ms`);
  } finally {
    await server.close();
  }
}

function versionTime(): void {
  const times: number[] = [];
  for (let i = 0; i < 10; i++) {
    const start = performance.now();
    execFileSync(process.execPath, [CLI, "--version"]);
    times.push(performance.now() - start);
  }
  const bare: number[] = [];
  for (let i = 0; i < 10; i++) {
    const start = performance.now();
    execFileSync(process.execPath, ["-e", "0"]);
    bare.push(performance.now() - start);
  }
  console.log(`toolbridge --version: median ${median(times).toFixed(0)} ms of 10 (goal < 300 ms); node -e 0: ${median(bare).toFixed(0)} ms`);
}

export async function run(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), "toolbridge-bench-chat-"));
  try {
    const config = join(home, "time.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { time: { command: process.execPath, args: [CLI, "serve", "time"], trust: true } } }));
    if (!process.env.BENCH_CHAT_ONLY_STREAM) {
      versionTime();
      await promptTime(home);
      await quitTime(home, config);
      await pasteEcho(home, config);
    }
    await streaming(home, config);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
