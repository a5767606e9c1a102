// The official MCP conformance suite (server mode) against our servers over Streamable HTTP.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "../support/processes.js";
import { startHttpServe, type HttpServe } from "./serve-process.js";

const CONFORMANCE = join(dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json")), "dist/index.js");

// Most scenarios call fixture tools (test_simple_text, ...) that only the suite's reference
// server has; these are the ones that judge any server.
const GENERAL = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection", "server-sse-multiple-streams"];
const SCENARIOS: Record<string, string[]> = {
  time: [...GENERAL, "resources-list", "prompts-list"],
  // The math server has no resources or prompts to list.
  math: GENERAL,
};

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** Checks of one scenario from a suite run's output directory (one folder per scenario: server-<name>-<time>). */
function readChecks(dir: string, scenario: string): Check[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.startsWith(`server-${scenario}-2`) && file.endsWith("checks.json"))
    .flatMap((file) => JSON.parse(readFileSync(join(dir, file), "utf8")) as Check[]);
}

describe.each(Object.keys(SCENARIOS))("conformance of the %s server", (name) => {
  let served: HttpServe;
  let out: string;
  let log: string;

  // One run of the whole suite costs about what one scenario costs (the start-up dominates);
  // the scenarios that need the suite's fixtures fail in it and are not looked at.
  beforeAll(async () => {
    served = await startHttpServe(name);
    out = mkdtempSync(join(tmpdir(), "toolbridge-conformance-"));
    const run = await promisify(execFile)(process.execPath, [CONFORMANCE, "server", "--url", served.url, "--suite", "all", "-o", out]).catch(
      (error: { stdout?: string; stderr?: string }) => error,
    );
    log = `${run.stdout ?? ""}${run.stderr ?? ""}`;
  }, 120_000);

  afterAll(async () => {
    const exit = await served.stop();
    expect(exit.code).toBe(0);
    expect(isAlive(served.child.pid as number)).toBe(false);
    rmSync(out, { recursive: true, force: true });
  });

  it.each(SCENARIOS[name] ?? [])("passes %s", (scenario) => {
    const checks = readChecks(out, scenario);
    expect(checks.length, log).toBeGreaterThan(0);
    expect(checks.filter((check) => check.status !== "SUCCESS")).toEqual([]);
    expect(log).toContain(`✓ ${scenario}: ${checks.length} passed, 0 failed`);
  });
});
