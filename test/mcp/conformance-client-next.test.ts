import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conformance, listedScenarios, type Check } from "../support/conformance.js";
import { expectNoChildren } from "./processes.js";

/**
 * Conformance 0.2.0-alpha.12 (2026-07-28) in client mode, the hub as the client
 * (test/support/conformance-client.ts): every scenario of the release runs, all at once (the
 * suite runs a suite's scenarios in parallel). Those in conformance-next-expected-failures.yml,
 * each there with its reason, must still fail; one that passes makes its test fail, so that the
 * list only shrinks. Every other scenario must pass with no failure and no warning.
 */

const CLIENT = fileURLToPath(new URL("../support/conformance-client.ts", import.meta.url));
const EXPECTED_FAILURES = fileURLToPath(new URL("../support/conformance-next-expected-failures.yml", import.meta.url));
const expectedFailures = [...readFileSync(EXPECTED_FAILURES, "utf8").matchAll(/^\s+- (\S+)/gm)].map((match) => match[1] as string);

describe("conformance 0.2.0-alpha.12, client scenarios", () => {
  const results = new Map<string, Check[]>();
  let log = "";
  let out: string;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "toolbridge-conformance-client-"));
    const command = `${process.execPath} --import tsx ${CLIENT}`;
    ({ output: log } = await conformance(["client", "--command", command, "--suite", "all", "--timeout", "90000", "-o", out], 280_000, "next"));
    // One folder per scenario, auth/ ones one level down: <scenario>-<time>/checks.json.
    for (const file of readdirSync(out, { recursive: true, encoding: "utf8" })) {
      const scenario = /^(.+)-\d{4}-\d\d-\d\dT[^/]+\/checks\.json$/.exec(file)?.[1];
      if (scenario) results.set(scenario, JSON.parse(readFileSync(join(out, file), "utf8")) as Check[]);
    }
  }, 300_000);

  afterAll(async () => {
    rmSync(out, { recursive: true, force: true });
    await expectNoChildren();
  });

  const failures = (scenario: string) => (results.get(scenario) ?? []).filter((check) => check.status === "FAILURE" || check.status === "WARNING");

  it("runs every client scenario the release lists", async () => {
    const listed = await listedScenarios("--client", "next");
    expect([...results.keys()].sort(), log).toEqual(listed.sort());
    expect(expectedFailures.filter((scenario) => !listed.includes(scenario))).toEqual([]);
  });

  it("passes every scenario not listed as an expected failure, with no failure and no warning", async () => {
    const listed = await listedScenarios("--client", "next");
    const failing = listed.filter((scenario) => !expectedFailures.includes(scenario) && failures(scenario).length > 0);
    expect(Object.fromEntries(failing.map((scenario) => [scenario, failures(scenario).map((check) => `${check.id}: ${check.errorMessage ?? ""}`)]))).toEqual({});
  });

  it.each(expectedFailures)("still fails %s (listed as an expected failure)", (scenario) => {
    expect(failures(scenario).length, `${scenario} now passes: take it off conformance-next-expected-failures.yml`).toBeGreaterThan(0);
  });
});
