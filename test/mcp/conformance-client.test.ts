import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { conformance } from "../support/conformance.js";
import { expectNoChildren } from "./processes.js";

/**
 * The official MCP conformance suite in client mode, with the hub as the client
 * (test/support/conformance-client.ts) on the Node running the tests. Every client scenario the
 * suite has must pass, the OAuth ones included, but those listed in conformance-expected-failures.yml
 * (out of scope, or a known regression named there), which must still fail (a baseline that passes is stale).
 */

const CLIENT = fileURLToPath(new URL("../support/conformance-client.ts", import.meta.url));
const EXPECTED_FAILURES = fileURLToPath(new URL("../support/conformance-expected-failures.yml", import.meta.url));
const expectedFailures = [...readFileSync(EXPECTED_FAILURES, "utf8").matchAll(/^\s+- (\S+)/gm)].map((match) => match[1] as string);

const PASSING = [
  "initialize",
  "tools_call",
  "elicitation-sep1034-client-defaults",
  "sse-retry",
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
  "auth/resource-mismatch",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
  "auth/client-credentials-jwt",
  "auth/client-credentials-basic",
];

function runScenario(scenario: string, ...extra: string[]): Promise<{ code: number; output: string }> {
  const command = `${process.execPath} --import tsx ${CLIENT}`;
  return conformance(["client", "--command", command, "--scenario", scenario, "--timeout", "60000", ...extra], 90_000);
}

describe("the MCP conformance suite, client scenarios", () => {
  it("has no client scenario this file does not run", async () => {
    const { output } = await conformance(["list", "--client"], 30_000);
    const listed = [...output.matchAll(/^\s+- (\S+) \[/gm)].map((match) => match[1] as string);
    expect(listed.sort()).toEqual([...PASSING, ...expectedFailures].sort());
  });

  it.each(PASSING)(
    "passes %s with no failure and no warning",
    async (scenario) => {
      const { code, output } = await runScenario(scenario);
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
      expect(summary, output).not.toBeNull();
      const [, passed, total, failed, warnings] = summary as RegExpExecArray;
      expect({ code, failed, warnings }, output).toEqual({ code: 0, failed: "0", warnings: "0" });
      expect(Number(passed)).toBe(Number(total));
      expect(Number(total)).toBeGreaterThan(0);
      await expectNoChildren();
    },
    100_000,
  );

  it.each(expectedFailures)(
    "still fails %s, listed as out of scope",
    async (scenario) => {
      const { code, output } = await runScenario(scenario, "--expected-failures", EXPECTED_FAILURES);
      expect(code, output).toBe(0);
      expect(output).toMatch(/Passed: \d+\/\d+, [1-9]\d* failed/);
    },
    100_000,
  );
});
