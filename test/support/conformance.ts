/** TEST INFRASTRUCTURE: the MCP conformance suite's CLI, run on Node 22 (it needs fs.globSync), whatever Node runs the tests. */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { LOOPBACK_PRELOAD } from "../mcp/processes.js";
import { nodeBinary } from "./node-releases.js";

/** The two releases the suite runs: 0.1.16 (2025-11-25) and 0.2.0-alpha.12 (2026-07-28 too), installed as conformance-next. */
export const RELEASES = {
  current: fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url)),
  next: fileURLToPath(new URL("../../node_modules/conformance-next/dist/index.js", import.meta.url)),
};

/** Runs `conformance ARGS` of that release; the output without its colours, and the exit code. */
export function conformance(args: string[], timeoutMs: number, release: keyof typeof RELEASES = "current"): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      nodeBinary(22),
      [RELEASES[release], ...args],
      {
        // Its scenario servers listen() with no host; the preload (inherited through NODE_OPTIONS) keeps them on 127.0.0.1.
        env: { ...process.env, NODE_OPTIONS: `--require ${LOOPBACK_PRELOAD}` },
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
