import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

export const FIXTURES = fileURLToPath(new URL("../fixtures/servers/", import.meta.url));
export const EVERYTHING = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
export const LOOPBACK_PRELOAD = fileURLToPath(new URL("../support/loopback.cjs", import.meta.url));

/** A stdio server config running one of test/fixtures/servers with this node. */
export function fixture(file: string, ...args: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: [`${FIXTURES}${file}`, ...args] };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Processes whose parent is this test process (the `ps` asking is left out). */
export function childPids(): number[] {
  let out = "";
  try {
    out = execFileSync("ps", ["-o", "pid=,comm=", "--ppid", String(process.pid)], { encoding: "utf8" });
  } catch {
    return []; // ps exits 1 when nothing matches
  }
  return out
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([pid, comm]) => pid && comm !== "ps")
    .map(([pid]) => Number(pid));
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

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
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
