import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { freePort } from "../support/free-port.js";
import { childPids } from "../support/processes.js";

export const FIXTURES = fileURLToPath(new URL("../fixtures/servers/", import.meta.url));
export const EVERYTHING = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
export const LOOPBACK_PRELOAD = fileURLToPath(new URL("../support/loopback.cjs", import.meta.url));

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
