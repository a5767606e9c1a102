import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { expectNoChildren, LOOPBACK_PRELOAD } from "./processes.js";

/**
 * The official MCP conformance suite (0.1.13) in client mode, with the hub as the client
 * (test/support/conformance-client.ts). Every non-auth client scenario must pass; the auth
 * scenarios need OAuth, which the hub does not do (listed in conformance-expected-failures.yml).
 */

const CONFORMANCE = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url));
const CLIENT = fileURLToPath(new URL("../support/conformance-client.ts", import.meta.url));

function runScenario(scenario: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CONFORMANCE, "client", "--command", `${process.execPath} --import tsx ${CLIENT}`, "--scenario", scenario, "--timeout", "60000"],
      {
        // The scenario servers listen() with no host; the preload keeps them (and us) on 127.0.0.1.
        env: { ...process.env, NODE_OPTIONS: `--require ${LOOPBACK_PRELOAD}` },
        timeout: 90_000,
      },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`.replace(/\u001b\[[0-9;]*m/g, "");
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output });
      },
    );
  });
}

describe("the MCP conformance suite, client scenarios", () => {
  it.each(["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"])(
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
});
