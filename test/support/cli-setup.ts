/**
 * TEST INFRASTRUCTURE ONLY: what the CLI's end-to-end files set up alike. A temporary home,
 * made before a file's tests and removed after them, with the config files they need written
 * into it; and the scripted model server each test starts, closed after that test.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { CLI } from "./cli.js";
import { startVllmServer, type VllmServer, type VllmServerOptions } from "./vllm-server.js";

export interface CliTestSetup {
  /** Starts a scripted model server for the running test; it is closed after that test. */
  startModel(options?: VllmServerOptions): Promise<VllmServer>;
}

/**
 * Registers the file's hooks: before its tests a home named from `prefix` is made and handed to
 * `ready` (which writes what the tests need and keeps the paths); after them it is removed.
 */
export function cliTestSetup(prefix: string, ready: (home: string) => void = () => undefined): CliTestSetup {
  let home: string | undefined;
  const models: VllmServer[] = [];
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), prefix));
    ready(home);
  });
  afterAll(() => {
    if (home) rmSync(home, { recursive: true, force: true });
  });
  afterEach(async () => {
    await Promise.all(models.splice(0).map((model) => model.close()));
  });
  return {
    async startModel(options) {
      const model = await startVllmServer(options);
      models.push(model);
      return model;
    },
  };
}

/** Writes `{mcpServers: servers, ...extra}` to `name` in `dir`; returns the file's path. */
export function writeConfig(dir: string, name: string, servers: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ mcpServers: servers, ...extra }));
  return file;
}

/** One of the bundled servers as a config starts it (the built CLI's `serve NAME`), trusted unless told otherwise. */
export function bundledServer(name: "time" | "math", trust = true): { command: string; args: string[]; trust?: true } {
  return { command: process.execPath, args: [CLI, "serve", name], ...(trust ? { trust: true as const } : {}) };
}
