/**
 * Hostile peers as a soak: each one against a real `toolbridge chat` process for a fixed
 * time (SOAK_SECONDS, default 8, after a first warm-up message). The chat talks to a scripted
 * model server that, on every message, has it call the hostile server's tool (where the case has
 * one) and then `ping` on a well-behaved server (where the model is the hostile peer, every
 * other message is hostile and the others ping); the model server times each ping from the tool call it sent to the
 * result coming back. Reported: the chat process's peak RSS (VmHWM), the slowest ping, and
 * whether every ping answered within 100 ms. Goal: peak RSS under 300 MB in every case.
 * SOAK_ONLY=text runs only the cases whose name contains it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { HostileServerOptions } from "../test/support/hostile-mcp-http.js";
import { listenScripted, type ScriptedServer } from "../test/support/scripted-server.js";

const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const HOSTILE_PEER = fileURLToPath(new URL("./support/hostile-peer.ts", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../test/fixtures/servers/", import.meta.url));
const SECONDS = Number(process.env.SOAK_SECONDS ?? 8);
const PING_GOAL_MS = 100;
const RSS_GOAL_MB = 300;
/** A turn that takes longer than this counts as a hang. */
const TURN_LIMIT_MS = 60_000;

interface Case {
  name: string;
  /** The hostile HTTP server, when the case has one. */
  http?: HostileServerOptions & { type?: "sse" };
  /** A hostile stdio fixture and its arguments. */
  stdio?: string[];
  /** The hostile tool the model calls on every message, with its arguments. */
  call?: { tool: string; args: Record<string, unknown> };
  /** The model itself is the hostile peer on every other message. */
  model?: (res: ServerResponse) => void;
  /** How many messages the model is hostile on, when not on every other one for the soak's length. */
  modelTimes?: number;
  /** More of the chat's `llm` settings. */
  llm?: Record<string, unknown>;
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** Writes `next()` for ever, minding backpressure, until the client goes away. */
function forever(res: ServerResponse, next: () => string | Buffer): void {
  const pump = (): void => {
    while (!res.destroyed) if (!res.write(next())) return void res.once("drain", pump);
  };
  pump();
}

const CASES: Case[] = [
  { name: "none (control: the machine's own ping times)" },
  { name: "endless data: line on the GET stream (idle)", http: { endlessGet: true } },
  { name: "endless data: line in a call's SSE reply", http: {}, call: { tool: "endless-sse", args: {} } },
  { name: "endless data: line on legacy SSE", http: { type: "sse" }, call: { tool: "endless-sse", args: {} } },
  { name: "gzip body inflating to 1 GiB", http: {}, call: { tool: "gzip-bomb", args: { mib: 1024 } } },
  { name: "300 MB JSON result", http: {}, call: { tool: "big-json", args: { mib: 300 } } },
  { name: "tools/list with a new nextCursor for ever", stdio: ["hostile-lists.mjs"], call: { tool: "go-endless", args: {} } },
  { name: "20,000 tools/list_changed", stdio: ["hostile-lists.mjs"], call: { tool: "flood", args: { count: 20_000, kinds: ["tools"] } } },
  { name: "100,000 progress notifications", stdio: ["hostile-lists.mjs"], call: { tool: "progress-flood", args: { count: 100_000 } } },
  { name: "structuredContent nested 100,000 deep", stdio: ["deep-json.mjs"], call: { tool: "deep", args: {} } },
  {
    name: "model streams content without end",
    model: (res) => {
      const piece = chunk({ content: "words ".repeat(2000) });
      forever(res, () => piece);
    },
  },
  { name: "model sends one 20 MB SSE event", model: (res) => oneLargeEvent(res, 20) },
  // The answer kept, and sent back with the conversation on every message after it.
  {
    name: "model sends one 20 MB SSE event, kept (llm.maxAnswerChars 32 Mi)",
    model: (res) => oneLargeEvent(res, 20),
    modelTimes: 1,
    llm: { maxAnswerChars: 32 * 1024 * 1024 },
  },
  // Each kept: the conversation grows by 20 MB every other message, and the peak with it.
  { name: "model sends a 20 MB SSE event every other message, each kept", model: (res) => oneLargeEvent(res, 20), llm: { maxAnswerChars: 32 * 1024 * 1024 } },
  { name: "model sends one 50 MB SSE event", model: (res) => oneLargeEvent(res, 50) },
];

/** One event of `mb` MB of content, written in 64 KiB pieces as the network would cut it. */
function oneLargeEvent(res: ServerResponse, mb: number): void {
  const event = Buffer.from(chunk({ content: "x".repeat(mb * 1024 * 1024) }));
  let offset = 0;
  const pump = (): void => {
    while (offset < event.length && !res.destroyed) {
      const piece = event.subarray(offset, offset + 65536);
      offset += piece.length;
      if (!res.write(piece)) return void res.once("drain", pump);
    }
    if (!res.destroyed) res.end(`${chunk({}, "stop")}data: [DONE]\n\n`);
  };
  pump();
}

interface Outcome {
  pingMs: number[];
  /** Pings answered by anything but the ping tool's own result. */
  pingsNotRun: number;
  turns: number;
  hung: boolean;
  peakRssMb: number;
  lastError: string;
}

/** The scripted model: per message, [the hostile call], then ping, then "done". */
async function scriptedModel(hostile: Case, onPing: (ms: number | undefined) => void, onTurnEnd: () => void): Promise<ScriptedServer> {
  let pingSentAt = 0;
  let calls = 0;
  let userMessages = 0;
  let hostileMessages = 0;
  const toolCall = (res: ServerResponse, name: string, args: Record<string, unknown>, then?: () => void): void => {
    const id = `call_${++calls}`;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(chunk({ role: "assistant", tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: JSON.stringify(args) } }] }));
    res.end(`${chunk({}, "tool_calls")}data: [DONE]\n\n`, then);
  };
  return listenScripted(async (request, res) => {
    if (request.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: "m", object: "model" }] }));
      return;
    }
    const messages = request.body.messages as { role: string; tool_call_id?: string; content?: unknown }[];
    const last = messages[messages.length - 1];
    const names = new Map<string, string>();
    for (const message of messages as { tool_calls?: { id: string; function: { name: string } }[] }[]) {
      for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
    }
    if (last?.role === "user") {
      userMessages++;
      // The first message warms up (servers started, code compiled): a ping alone, not counted.
      if (userMessages === 1) return toolCall(res, "ping", {}, () => (pingSentAt = performance.now()));
      if (hostile.model && userMessages % 2 === 0 && hostileMessages < (hostile.modelTimes ?? Number.POSITIVE_INFINITY)) {
        hostileMessages++;
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.on("close", onTurnEnd);
        hostile.model(res);
        return;
      }
      if (hostile.call) return toolCall(res, hostile.call.tool, hostile.call.args);
      return toolCall(res, "ping", {}, () => (pingSentAt = performance.now()));
    }
    const calledName = names.get(last?.tool_call_id ?? "");
    if (calledName !== "ping") return toolCall(res, "ping", {}, () => (pingSentAt = performance.now()));
    // Only a ping that ran counts: a refusal (the approval policy) or an error answers fast and measures nothing.
    if (userMessages > 1) onPing(pingAnswer(last?.content) ? performance.now() - pingSentAt : undefined);
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(`${chunk({ role: "assistant", content: "done." })}${chunk({}, "stop")}data: [DONE]\n\n`, onTurnEnd);
  });
}

/** Whether a tool message is the well-behaved server's ping result ("toy:ping"), not a refusal or an error. */
function pingAnswer(content: unknown): boolean {
  const text = typeof content === "string" ? content : JSON.stringify(content ?? "");
  return text.includes("toy:ping") && !text.includes("Not run");
}

function peakRssMb(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

async function soak(hostile: Case): Promise<Outcome> {
  const dir = mkdtempSync(join(tmpdir(), "toolbridge-soak-"));
  let http: ChildProcess | undefined;
  let chat: ChildProcess | undefined;
  const outcome: Outcome = { pingMs: [], pingsNotRun: 0, turns: 0, hung: false, peakRssMb: 0, lastError: "" };
  let turnEnded: (() => void) | undefined;
  const model = await scriptedModel(
    hostile,
    (ms) => (ms === undefined ? outcome.pingsNotRun++ : outcome.pingMs.push(ms)),
    () => turnEnded?.(),
  );
  try {
    // Trusted, both: what is measured is hostile data and the ping through another server, not the approval
    // policy, which would refuse every call of an untrusted server here (no terminal to ask on).
    const servers: Record<string, unknown> = { well: { command: process.execPath, args: [`${FIXTURES}toy-server.mjs`, "--tools", "ping"], trust: true } };
    if (hostile.http) {
      http = spawn(process.execPath, ["--import", "tsx", HOSTILE_PEER, JSON.stringify(hostile.http)], { stdio: ["ignore", "pipe", "inherit"] });
      const line = await new Promise<string>((resolve) => http!.stdout?.once("data", (data: Buffer) => resolve(data.toString("utf8"))));
      const urls = JSON.parse(line) as { url: string; sseUrl: string };
      servers.hostile = {
        url: hostile.http.type === "sse" ? urls.sseUrl : urls.url,
        ...(hostile.http.type ? { type: hostile.http.type } : {}),
        excludeTools: ["ping"],
        trust: true,
      };
    }
    if (hostile.stdio) {
      const [file, ...args] = hostile.stdio;
      servers.hostile = { command: process.execPath, args: [`${FIXTURES}${file}`, ...args], trust: true };
    }
    const config = join(dir, "toolbridge.json");
    writeFileSync(config, JSON.stringify({ mcpServers: servers, llm: { provider: "openai-compatible", baseURL: `${model.url}/v1`, model: "m", maxIterations: 5, ...hostile.llm } }));
    const child = spawn(process.execPath, [CLI, "chat", "--config", config], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HOME: dir, TMPDIR: dir, NO_COLOR: "1" },
      stdio: ["pipe", "ignore", "pipe"],
    });
    chat = child;
    child.stderr?.on("data", (data: Buffer) => {
      const lines = data.toString("utf8").split("\n").filter((line) => line.startsWith("toolbridge:") || line.includes("✗"));
      if (lines.length) outcome.lastError = lines[lines.length - 1]!.replace(/\s+/g, " ").trim().slice(0, 140);
    });
    let onExit: (() => void) | undefined;
    child.on("exit", () => onExit?.());
    let deadline = Number.POSITIVE_INFINITY;
    while (performance.now() < deadline && child.exitCode === null) {
      const ended = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), TURN_LIMIT_MS);
        turnEnded = () => {
          clearTimeout(timer);
          resolve(true);
        };
        onExit = () => resolve(false);
      });
      child.stdin?.write("go\n");
      if (!(await ended)) {
        outcome.hung = child.exitCode === null;
        break;
      }
      // The soak's time counts from the end of the warm-up message.
      if (deadline === Number.POSITIVE_INFINITY) deadline = performance.now() + SECONDS * 1000;
      else outcome.turns++;
      // Let the chat print and take the next line.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    outcome.peakRssMb = peakRssMb(child.pid ?? 0);
    if (child.exitCode !== null) outcome.lastError = `chat exited (${child.exitCode ?? child.signalCode}): ${outcome.lastError}`;
  } finally {
    if (chat && chat.exitCode === null && chat.signalCode === null) {
      const exited = new Promise((resolve) => chat!.once("exit", resolve));
      chat.stdin?.end();
      const timer = setTimeout(() => chat!.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    if (http && http.exitCode === null) {
      const exited = new Promise((resolve) => http!.once("exit", resolve));
      http.kill("SIGKILL");
      await exited;
    }
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return outcome;
}

export async function run(): Promise<void> {
  const rows = [];
  const only = process.env.SOAK_ONLY;
  for (const hostile of CASES.filter((c) => only === undefined || c.name.includes(only))) {
    const outcome = await soak(hostile);
    const pings = [...outcome.pingMs].sort((a, b) => a - b);
    const within = pings.filter((ms) => ms < PING_GOAL_MS).length;
    rows.push({
      "hostile peer": hostile.name,
      "peak RSS MB": outcome.peakRssMb.toFixed(0),
      [`< ${RSS_GOAL_MB} MB`]: outcome.peakRssMb < RSS_GOAL_MB ? "yes" : "NO",
      turns: outcome.turns,
      "ping p50 ms": pings.length ? (pings[Math.floor(pings.length / 2)] ?? 0).toFixed(1) : "-",
      "ping max ms": pings.length ? (pings[pings.length - 1] ?? 0).toFixed(1) : "-",
      [`pings < ${PING_GOAL_MS} ms`]: outcome.hung ? "HUNG" : `${within}/${pings.length}`,
      "pings not run": outcome.pingsNotRun,
      "what toolbridge said": outcome.hung ? `HUNG; ${outcome.lastError}` : outcome.lastError || "-",
    });
  }
  console.log(`\nsoak: each hostile peer against \`toolbridge chat\` for ${SECONDS} s (a ping through another server after each hostile act)`);
  console.table(rows);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await run();
