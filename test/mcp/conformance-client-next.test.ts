import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledClient, conformance, listedScenarios, startGate, type Check } from "../support/conformance.js";
import { expectNoChildren } from "./processes.js";

/**
 * Conformance 0.2.0-alpha.12 (2026-07-28) in client mode, the hub as the client
 * (test/support/conformance-client.ts): every scenario of the release runs in one suite run.
 * Those in conformance-next-expected-failures.yml, each there with its reason, must still fail; one
 * that passes makes its test fail, so that the list only shrinks. Every other scenario must pass
 * with no failure and no warning.
 *
 * Steady beside other test files: the client is bundled once (no tsx compiling the hub in each of
 * the suite's 48 client processes) and at most SLOTS clients run at once (startGate), each taking its
 * slot before it loads the hub (conformance-slot.ts), so that no scenario's timeout is spent waiting
 * for the CPU behind the others: 48 clients loading the hub together stalled the first few past
 * their start-up time, and the suite's scenario servers with them.
 */

const EXPECTED_FAILURES = fileURLToPath(new URL("../support/conformance-next-expected-failures.yml", import.meta.url));
const expectedFailures = [...readFileSync(EXPECTED_FAILURES, "utf8").matchAll(/^\s+- (\S+)/gm)].map((match) => match[1] as string);
const SLOTS = 4;

describe("conformance 0.2.0-alpha.12, client scenarios", () => {
  const results = new Map<string, Check[]>();
  let listed: string[] = [];
  let log = "";
  let out: string;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "toolbridge-conformance-client-"));
    const [client, gate] = await Promise.all([bundledClient(), startGate(SLOTS)]);
    try {
      // A client's timeout runs from its start, its wait for a slot included: bounds, not expectations.
      [{ output: log }, listed] = await Promise.all([
        conformance(["client", "--command", client.command, "--suite", "all", "--timeout", "240000", "-o", out], 560_000, "next", {
          TOOLBRIDGE_CONFORMANCE_GATE: gate.url,
        }),
        listedScenarios("--client", "next"),
      ]);
    } finally {
      client.remove();
      await gate.close();
    }
    // One folder per scenario, auth/ ones one level down: <scenario>-<time>/checks.json.
    for (const file of readdirSync(out, { recursive: true, encoding: "utf8" })) {
      const scenario = /^(.+)-\d{4}-\d\d-\d\dT[^/]+\/checks\.json$/.exec(file)?.[1];
      if (scenario) results.set(scenario, JSON.parse(readFileSync(join(out, file), "utf8")) as Check[]);
    }
  }, 600_000);

  afterAll(async () => {
    rmSync(out, { recursive: true, force: true });
    await expectNoChildren();
  });

  const failures = (scenario: string) => (results.get(scenario) ?? []).filter((check) => check.status === "FAILURE" || check.status === "WARNING");

  it("runs every client scenario the release lists", () => {
    expect([...results.keys()].sort(), log).toEqual([...listed].sort());
    expect(expectedFailures.filter((scenario) => !listed.includes(scenario))).toEqual([]);
  });

  it("passes every scenario not listed as an expected failure, with no failure and no warning", () => {
    const failing = listed.filter((scenario) => !expectedFailures.includes(scenario) && failures(scenario).length > 0);
    expect(Object.fromEntries(failing.map((scenario) => [scenario, failures(scenario).map((check) => `${check.id}: ${check.errorMessage ?? ""}`)]))).toEqual({});
  });

  it.each(expectedFailures)("still fails %s (listed as an expected failure)", (scenario) => {
    expect(failures(scenario).length, `${scenario} now passes: take it off conformance-next-expected-failures.yml`).toBeGreaterThan(0);
  });
});
