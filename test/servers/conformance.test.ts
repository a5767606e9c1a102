// The official MCP conformance suite (server mode) against our servers over Streamable HTTP.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conformance } from "../support/conformance.js";
import { isAlive } from "../support/processes.js";
import { startHttpServe, type HttpServe } from "./serve-process.js";

// Most scenarios call fixture tools (test_simple_text, ...) that only the suite's reference
// server has; these are the ones that judge any server (tools-call-simple-text and tools-call-error
// pass against any server and prove nothing, so they are not counted).
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
    log = (await conformance(["server", "--url", served.url, "--suite", "all", "-o", out], 110_000)).output;
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

  // It calls the suite's fixture tool test_reconnection, which these servers do not have; what it
  // judges of any server is the 2025-11-25 priming of each SSE stream (an event id, empty data) and
  // its retry field. The unknown tool is a JSON-RPC error (-32602, as the spec has it), not a result,
  // so the suite goes on to resume the stream looking for a result and warns that none came.
  it("primes its SSE streams with an event id and a retry field (server-sse-polling)", () => {
    const checks = readChecks(out, "server-sse-polling");
    const status = (id: string) => checks.filter((check) => check.id === id).map((check) => check.status);
    expect(status("server-sse-priming-event"), log).toEqual(["SUCCESS"]);
    expect(status("server-sse-retry-field"), log).toEqual(["SUCCESS"]);
    expect(checks.filter((check) => check.status === "WARNING").map((check) => check.id)).toEqual(["server-sse-disconnect-resume"]);
    expect(checks.filter((check) => check.status === "FAILURE")).toEqual([]);
  });
});
