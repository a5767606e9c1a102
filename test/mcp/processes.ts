import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { freePort } from "../support/free-port.js";
import { childPids, isAlive } from "../support/processes.js";

export const FIXTURES = fileURLToPath(new URL("../fixtures/servers/", import.meta.url));
export const EVERYTHING = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
export const LOOPBACK_PRELOAD = fileURLToPath(new URL("../support/loopback.cjs", import.meta.url));

/**
 * Runs a fixture that serves Streamable HTTP with `--http PORT_FILE` (it writes the port it listens on there); `stop`
 * kills it and waits for its exit.
 */
export async function httpFixture(file: string, dir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const portFile = join(dir, `${file}.port`);
  // A server started before in the same directory left its port there.
  rmSync(portFile, { force: true });
  const child = spawn(process.execPath, [join(FIXTURES, file), "--http", portFile], { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async (): Promise<void> => {
    child.kill();
    await exited;
  };
  try {
    await waitUntil(() => existsSync(portFile) && readFileSync(portFile, "utf8").length > 0, 15_000, "the HTTP server's port");
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${readFileSync(portFile, "utf8")}/mcp`, stop };
}

/** What test/fixtures/servers/records-its-end.mjs wrote to `log`: one event a line (none before it started). */
export function recordedEvents(log: string): string[] {
  return existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
}

/** A stdio server config running one of test/fixtures/servers with this node. */
export function fixture(file: string, ...args: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: [`${FIXTURES}${file}`, ...args] };
}



export async function waitUntil(condition: () => boolean, timeoutMs = 5000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Asserts no child process of this test process is left (children may need a moment to be reaped). */
export async function expectNoChildren(): Promise<void> {
  await waitUntil(() => childPids().length === 0, 3000, "child processes to end").catch(() => undefined);
  expect(childPids()).toEqual([]);
}


export interface HttpEverything {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** server-everything in an HTTP mode, kept on loopback by the preload. */
export async function startHttpEverything(mode: "streamableHttp" | "sse"): Promise<HttpEverything> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port), NODE_OPTIONS: `--require ${LOOPBACK_PRELOAD}` },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  await waitUntil(() => /listening|running/i.test(stderr) || child.exitCode !== null, 15_000, "server-everything to listen");
  if (child.exitCode !== null) throw new Error(`server-everything exited: ${stderr}`);
  return {
    url: mode === "sse" ? `http://127.0.0.1:${port}/sse` : `http://127.0.0.1:${port}/mcp`,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

/**
 * Pids that servers write to files (themselves, a shell, a `sleep` in the background): what
 * no child listing sees once it left our process tree. None may outlive a test.
 */
export class WrittenPids {
  private count = 0;
  private readonly pids: number[] = [];

  constructor(private readonly dir: string) {}

  /** A fresh file for a server to write a pid to. */
  file(): string {
    return join(this.dir, `pid-${this.count++}`);
  }

  async read(file: string): Promise<number> {
    await waitUntil(() => existsSync(file) && readFileSync(file, "utf8").trim() !== "", 20_000, `${file} to be written`);
    const pid = Number(readFileSync(file, "utf8"));
    this.pids.push(pid);
    return pid;
  }

  /** Fails when any of them is still alive a moment later (and kills it, not to leave it behind). */
  async expectAllGone(): Promise<void> {
    await waitUntil(() => !this.pids.some(isAlive), 3000, "written-down processes to end").catch(() => undefined);
    const alive = this.pids.filter(isAlive);
    for (const pid of alive) process.kill(pid, "SIGKILL");
    this.pids.length = 0;
    expect(alive).toEqual([]);
  }
}
