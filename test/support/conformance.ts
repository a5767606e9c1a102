/** TEST INFRASTRUCTURE: the MCP conformance suite's CLI, run on Node 22 (it needs fs.globSync), whatever Node runs the tests. */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { LOOPBACK_PRELOAD } from "../mcp/processes.js";
import { nodeBinary } from "./node-releases.js";

/** The two releases the suite runs: 0.1.16 (2025-11-25) and 0.2.0-alpha.12 (2026-07-28 too), installed as conformance-next. */
export const RELEASES = {
  current: fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url)),
  next: fileURLToPath(new URL("../../node_modules/conformance-next/dist/index.js", import.meta.url)),
};

/** Runs `conformance ARGS` of that release; the output without its colours, and the exit code. */
export function conformance(
  args: string[],
  timeoutMs: number,
  release: keyof typeof RELEASES = "current",
  env: Record<string, string> = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      nodeBinary(22),
      [RELEASES[release], ...args],
      {
        // Its scenario servers listen() with no host; the preload (inherited through NODE_OPTIONS) keeps them on 127.0.0.1.
        env: { ...process.env, ...env, NODE_OPTIONS: `--require ${LOOPBACK_PRELOAD}` },
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`.replace(/\u001b\[[0-9;]*m/g, "");
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output });
      },
    );
  });
}

/** A scenario run's summary line says every check passed, none failed or warned, and there was at least one. */
export function expectCleanPass(output: string): void {
  const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
  expect(summary, output).not.toBeNull();
  const [, passed, total, failed, warnings] = summary as RegExpExecArray;
  expect({ failed, warnings, passed }, output).toEqual({ failed: "0", warnings: "0", passed: total });
  expect(Number(total)).toBeGreaterThan(0);
}

export interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** One `conformance server --suite all` run of a release against a URL: each scenario's checks, and the log. */
export interface ServerSuiteRun {
  log: string;
  checks(scenario: string): Check[];
}

/**
 * Runs every server scenario of the release against the URL in one process (its start-up costs
 * about what a scenario does, and the scenarios that need the suite's own fixture tools fail fast).
 */
export async function serverSuite(url: string, release: keyof typeof RELEASES, timeoutMs: number): Promise<ServerSuiteRun> {
  const out = mkdtempSync(join(tmpdir(), "toolbridge-conformance-"));
  try {
    const { output } = await conformance(["server", "--url", url, "--suite", "all", "-o", out], timeoutMs, release);
    // One folder per scenario: server-<name>-<time>/checks.json.
    const files = readdirSync(out, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith("checks.json"));
    const byScenario = new Map<string, Check[]>();
    for (const file of files) {
      const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(file)?.[1];
      if (scenario) byScenario.set(scenario, [...(byScenario.get(scenario) ?? []), ...(JSON.parse(readFileSync(join(out, file), "utf8")) as Check[])]);
    }
    return { log: output, checks: (scenario) => byScenario.get(scenario) ?? [] };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The scenario names `conformance list` prints for that side (`--server` or `--client`) of the release. */
export async function listedScenarios(side: "--server" | "--client", release: keyof typeof RELEASES): Promise<string[]> {
  const { output } = await conformance(["list", side], 30_000, release);
  return [...output.matchAll(/^\s+- (\S+) \[/gm)].map((match) => match[1] as string);
}

const CLIENT = fileURLToPath(new URL("./conformance-slot.ts", import.meta.url));
/** Inside the project, so that the bundle's imports resolve to its node_modules. */
const BUNDLES = fileURLToPath(new URL("../../node_modules/.cache/toolbridge-conformance/", import.meta.url));

/**
 * The hub's conformance client behind a slot of a gate (conformance-slot.ts, TOOLBRIDGE_CONFORMANCE_GATE),
 * bundled once per test file: each scenario starts it as plain node, instead of tsx compiling the hub's
 * sources again in every process. Split in two, so that a client waiting for its slot has loaded only
 * the small entry. The command for `conformance client --command`, and what removes the files.
 */
export async function bundledClient(): Promise<{ command: string; remove(): void }> {
  const { build, stop } = await import("esbuild");
  const dir = `${BUNDLES}client-${process.pid}-${Date.now()}/`;
  mkdirSync(dir, { recursive: true });
  try {
    await build({
      entryPoints: { entry: CLIENT },
      outdir: dir,
      outExtension: { ".js": ".mjs" },
      bundle: true,
      splitting: true,
      platform: "node",
      format: "esm",
      packages: "external",
      logLevel: "error",
    });
  } finally {
    // Its service process would outlive the test file's check that no child is left.
    await stop();
  }
  return { command: `${process.execPath} ${dir}entry.mjs`, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A gate for a suite run: the suite starts every scenario's client at once, and on a busy machine so
 * many starting together all pass their timeout. Each client takes a slot (a GET it holds open,
 * TOOLBRIDGE_CONFORMANCE_GATE) before it loads the hub (conformance-slot.ts); a slot frees when its connection closes, so a
 * client that was killed gives its slot back too.
 */
export async function startGate(slots: number): Promise<{ url: string; close(): Promise<void> }> {
  let free = slots;
  const waiting = new Set<() => void>();
  const server = createServer((_request, response) => {
    let admitted = false;
    const admit = () => {
      waiting.delete(admit);
      admitted = true;
      response.writeHead(200, { "content-type": "text/plain" }).write("go\n");
    };
    response.on("close", () => {
      waiting.delete(admit);
      if (!admitted) return;
      const [next] = waiting;
      if (next) next();
      else free++;
    });
    if (free > 0) {
      free--;
      admit();
    } else waiting.add(admit);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
