import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { DEFAULT_VLLM_MODEL, startVllmServer } from "../support/vllm-server.js";

/** `run -` and `run --json` against the scripted vLLM server and the bundled servers. */

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbridge-run-input-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("toolbridge run", () => {
  it("`-` reads the prompt from stdin instead of sending a literal -", async () => {
    const upstream = await startVllmServer({ replies: [{ text: "Tuesday." }] });
    try {
      const run = await runCli(["run", "-", "--base-url", upstream.url, "--model", DEFAULT_VLLM_MODEL], { cwd: dir, input: "Which day is it?\n" });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain("Tuesday.");
      const messages = upstream.chatRequests[0]!.body.messages as { role: string; content: unknown }[];
      expect(messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["Which day is it?"]);
    } finally {
      await upstream.close();
    }
  }, 60_000);

  it("--json gives durations in whole milliseconds, the turn's and each tool call's", async () => {
    const upstream = await startVllmServer({ replies: [{ toolCalls: [{ name: "get-date", arguments: { format: "iso" } }] }, { text: "Done." }] });
    try {
      const run = await runCli(["run", "date?", "--json", "--approve", "all", "--base-url", upstream.url, "--model", DEFAULT_VLLM_MODEL], { cwd: dir });
      expect(run.code, run.stderr).toBe(0);
      const turn = JSON.parse(run.stdout) as { durationMs: number; toolCalls: { durationMs: number }[] };
      expect(turn.toolCalls).toHaveLength(1);
      for (const duration of [turn.durationMs, ...turn.toolCalls.map((call) => call.durationMs)]) expect(Number.isInteger(duration)).toBe(true);
      expect(run.stdout).not.toMatch(/"durationMs": \d+\.\d/);
    } finally {
      await upstream.close();
    }
  }, 60_000);
});
