/**
 * TEST INFRASTRUCTURE: a real Redis (Debian's redis-server) on a free loopback port, with no
 * persistence, for the tests of replicas that share state. It can be stopped and started
 * again on the same port (Redis going away and coming back).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { freePort } from "./free-port.js";

export const REDIS_SERVER = "/usr/bin/redis-server";

export interface RedisServer {
  url: string;
  port: number;
  /** Stops it (SIGKILL: gone at once, as when its machine fails). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = () =>
    new Promise<void>((resolve, reject) => {
      const spawned = spawn(REDIS_SERVER, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes"], { stdio: ["ignore", "pipe", "pipe"] });
      child = spawned;
      let out = "";
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000);
      spawned.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("Ready to accept connections")) {
          clearTimeout(timer);
          resolve();
        }
      });
      spawned.once("error", reject);
    });
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };
  await launch();
  return { url: `redis://127.0.0.1:${port}`, port, stop, restart: launch };
}
