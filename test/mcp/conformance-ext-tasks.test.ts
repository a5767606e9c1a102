import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conformance, expectCleanPass, listedScenarios } from "../support/conformance.js";
import { expectNoChildren, httpFixture } from "./processes.js";

/**
 * The conformance suite 0.2.0-alpha.12 has the tasks extension (SEP-2663) only as server scenarios. They are run
 * against the test server the hub's extension tests talk to (test/fixtures/servers/ext-tasks-server.mjs), so the
 * peer those tests prove the client against speaks the extension as the suite checks it: flat CreateTaskResult,
 * result and error inline on tasks/get, tasks/update and tasks/cancel acks, -32021 without the extension.
 */

const SCENARIOS = [
  "tasks-capability-negotiation",
  "tasks-dispatch-and-envelope",
  "tasks-lifecycle",
  "tasks-mrtr-composition",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-request-state-removal",
  "tasks-required-task-error",
  "tasks-wire-fields",
];
/** Left out, with the reason. */
const LEFT_OUT = { "tasks-status-notifications": "the suite skips it itself (its harness awaits a rewrite for subscriptions/listen)" };

describe("the conformance suite's tasks extension scenarios (0.2.0-alpha.12), against the extension test server", () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolbridge-ext-tasks-conformance-")));
  let server: Awaited<ReturnType<typeof httpFixture>>;
  beforeAll(async () => {
    server = await httpFixture("ext-tasks-server.mjs", dir);
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    await expectNoChildren();
  });

  it("runs or leaves out, with a reason, every tasks scenario of the release", async () => {
    const listed = (await listedScenarios("--server", "next")).filter((name) => name.startsWith("tasks-"));
    expect(listed.sort()).toEqual([...SCENARIOS, ...Object.keys(LEFT_OUT)].sort());
  });

  it.concurrent.each(SCENARIOS)(
    "passes %s with no failure and no warning",
    async (scenario) => {
      const { output } = await conformance(["server", "--url", server.url, "--scenario", scenario], 90_000, "next");
      expectCleanPass(output);
    },
    100_000,
  );
});
