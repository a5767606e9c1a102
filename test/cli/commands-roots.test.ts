import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, cliEnv, runCli } from "../support/cli.js";
import { DEFAULT_VLLM_MODEL, startVllmServer } from "../support/vllm-server.js";

/**
 * `--config` and `--root` on every command, the top-level `roots` key, and which roots a
 * server is offered when none are configured: against server-everything (get-roots-list) and
 * server-filesystem (list_allowed_directories).
 */

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const FILESYSTEM = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");

let dir: string;
let shared: string;
let flagged: string;
let elsewhere: string;
let everythingConfig: string;

function text(result: Record<string, unknown>): string {
  return ((result.content ?? []) as { type: string; text?: string }[]).map((part) => part.text ?? "").join("\n");
}

function writeConfig(name: string, config: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(config));
  return file;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbridge-roots-cli-"));
  shared = join(dir, "shared");
  flagged = join(dir, "flagged");
  elsewhere = join(dir, "elsewhere");
  for (const d of [shared, flagged, elsewhere]) mkdirSync(d);
  everythingConfig = writeConfig("everything.json", { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], trust: true } } });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("roots", () => {
  it("the top-level roots key is accepted without a warning, resolved against the config file", async () => {
    const config = writeConfig("roots.json", { roots: ["shared"], mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } });
    const run = await runCli(["call", "get-roots-list", "-c", config], { cwd: elsewhere });
    expect(run.stderr).not.toMatch(/unknown key/);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(pathToFileURL(shared).href);
    expect(run.stdout).not.toContain(pathToFileURL(elsewhere).href);
  }, 60_000);

  it("with no roots configured, server-filesystem keeps the directories its arguments name", async () => {
    const config = writeConfig("fs.json", { mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM, shared] } } });
    const run = await runCli(["call", "list_allowed_directories", "-c", config], { cwd: elsewhere });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(shared);
    expect(run.stdout).not.toContain(elsewhere);
    // A server whose arguments name no directory is offered the current directory.
    const everything = await runCli(["call", "get-roots-list", "-c", everythingConfig], { cwd: elsewhere });
    expect(everything.stdout).toContain(pathToFileURL(elsewhere).href);
  }, 60_000);

  it("--root replaces the directories of server-filesystem's arguments, as configured roots do", async () => {
    const config = writeConfig("fs-root.json", { mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM, shared] } } });
    const run = await runCli(["call", "list_allowed_directories", "-c", config, "--root", flagged], { cwd: elsewhere });
    expect(run.stdout).toContain(flagged);
    expect(run.stdout).not.toContain(shared);
  }, 60_000);
});

describe("-c and --root on serve and gateway", () => {
  it("serve hub -c FILE --root DIR", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "hub", "-c", everythingConfig, "--root", flagged],
      env: cliEnv(dir) as Record<string, string>,
      cwd: elsewhere,
      stderr: "pipe",
    });
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const listed = text(await client.callTool({ name: "get-roots-list", arguments: {} }));
      expect(listed).toContain(pathToFileURL(flagged).href);
      expect(listed).not.toContain(pathToFileURL(elsewhere).href);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("gateway -c FILE --root DIR", async () => {
    const upstream = await startVllmServer({ replies: [] });
    const child = spawn(process.execPath, [CLI, "gateway", "-c", everythingConfig, "--root", flagged, "--listen", "127.0.0.1:0", "--base-url", upstream.url, "--model", DEFAULT_VLLM_MODEL], {
      cwd: elsewhere,
      env: cliEnv(dir),
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await expect.poll(() => stderr, { timeout: 60_000 }).toMatch(/listening on (http:\/\/\S+) /);
      const url = /listening on (http:\/\/\S+) /.exec(stderr)![1]!;
      const client = new Client({ name: "test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
      const listed = text(await client.callTool({ name: "get-roots-list", arguments: {} }));
      await client.close();
      expect(listed).toContain(pathToFileURL(flagged).href);
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
      await upstream.close();
    }
  }, 90_000);
});
