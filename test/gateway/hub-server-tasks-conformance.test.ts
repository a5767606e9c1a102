import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conformance, expectCleanPass, listedScenarios } from "../support/conformance.js";
import { TASKS_LEFT_OUT, TASKS_SCENARIOS } from "../support/conformance-server-scope.js";
import { fixture } from "../mcp/processes.js";
import { startHarness, type Harness } from "./harness.js";

/**
 * The conformance suite's tasks extension scenarios (0.2.0-alpha.12) against the gateway's /mcp, with the
 * extension test server (test/fixtures/servers/ext-tasks-server.mjs, which has the tools the scenarios call) behind
 * the hub. The server behind decides which calls become tasks, as it would for the suite's client: the hub relays
 * its tasks (status, result, error and questions), its answers to them, and its -32021 for a task-only tool.
 */

describe("the conformance suite's tasks extension scenarios (0.2.0-alpha.12), against the gateway's /mcp", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ servers: { jobs: fixture("ext-tasks-server.mjs") }, approve: "all" });
  }, 60_000);
  afterAll(async () => harness.close());

  it("runs or leaves out, with a reason, every tasks scenario of the release", async () => {
    const listed = (await listedScenarios("--server", "next")).filter((name) => name.startsWith("tasks-"));
    expect(listed.sort()).toEqual([...TASKS_SCENARIOS, ...Object.keys(TASKS_LEFT_OUT)].sort());
  });

  it.each(TASKS_SCENARIOS)(
    "passes %s with no failure and no warning",
    async (scenario) => {
      const { output } = await conformance(["server", "--url", `${harness.gateway.url}/mcp`, "--scenario", scenario], 90_000, "next");
      expectCleanPass(output);
    },
    100_000,
  );
});
