import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { conformance, expectCleanPass, listedScenarios } from "../support/conformance.js";
import { expectNoChildren } from "./processes.js";

/**
 * The skills extension's client scenarios (SEP-2640) of the conformance suite 0.2.0-alpha.12, with the
 * hub as the client (test/support/conformance-client.ts): no skill file is read before a skill is
 * loaded, and a SKILL.md whose digest, size or frontmatter differs from the listing is refused.
 */

const CLIENT = fileURLToPath(new URL("../support/conformance-client.ts", import.meta.url));
const SCENARIOS = ["sep-2640-client-no-prefetch", "sep-2640-client-verify-digest", "sep-2640-client-verify-size", "sep-2640-client-verify-frontmatter"];

describe("the conformance suite's skills scenarios (0.2.0-alpha.12)", () => {
  afterAll(() => expectNoChildren());

  it("has no skills client scenario this file does not run", async () => {
    expect((await listedScenarios("--client", "next")).filter((name) => name.startsWith("sep-2640-"))).toEqual(SCENARIOS);
  });

  // Side by side: each is a suite process and a client process, mostly waiting on start-up.
  it.concurrent.each(SCENARIOS)(
    "passes %s with no failure and no warning",
    async (scenario) => {
      const command = `${process.execPath} --import tsx ${CLIENT}`;
      const { output } = await conformance(["client", "--command", command, "--scenario", scenario, "--timeout", "60000"], 90_000, "next");
      expectCleanPass(output);
    },
    100_000,
  );
});
