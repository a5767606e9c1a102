import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conformance, expectCleanPass, listedScenarios } from "../support/conformance.js";
import { TASKS_LEFT_OUT, TASKS_SCENARIOS } from "../support/conformance-server-scope.js";
import { expectNoChildren, httpFixture } from "./processes.js";

/**
 * The conformance suite 0.2.0-alpha.12 has the tasks extension (SEP-2663) only as server scenarios. They are run
 * against the test server the hub's extension tests talk to (test/fixtures/servers/ext-tasks-server.mjs), so the
 * peer those tests prove the client against speaks the extension as the suite checks it: flat CreateTaskResult,
 * result and error inline on tasks/get, tasks/update and tasks/cancel acks, -32021 without the extension.
 */

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
    expect(listed.sort()).toEqual([...TASKS_SCENARIOS, ...Object.keys(TASKS_LEFT_OUT)].sort());
  });

  it.concurrent.each(TASKS_SCENARIOS)(
    "passes %s with no failure and no warning",
    async (scenario) => {
      const { output } = await conformance(["server", "--url", server.url, "--scenario", scenario], 90_000, "next");
      expectCleanPass(output);
    },
    100_000,
  );
});
