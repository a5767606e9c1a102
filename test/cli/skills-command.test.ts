import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { fixture } from "../mcp/processes.js";

/** `toolbridge skills` and the chat's `/skills`, with the built CLI and the v2 skills server of the tests (hostile mode). */

const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolbridge-skills-cli-")));
writeFileSync(join(dir, "toolbridge.json"), JSON.stringify({ mcpServers: { docs: fixture("skills-server.mjs", "--hostile") } }));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("toolbridge skills", () => {
  it("lists every skill with its server, file count and summary", async () => {
    const { code, stdout } = await runCli(["skills"], { cwd: dir });
    expect(code).toBe(0);
    expect(stdout.split("\n")[0]).toMatch(/^NAME\s+SERVER\s+FILES\s+SUMMARY$/);
    expect(stdout).toMatch(/^pdf-processing\s+docs\s+2\s+Extract text from PDFs and fill PDF forms$/m);
    expect(stdout).not.toContain("no-digest");
  }, 60_000);

  it("exits 1 with one line when the skill's file fails verification, printing nothing of it", async () => {
    const { code, stdout, stderr } = await runCli(["skills", "wrong-digest"], { cwd: dir });
    expect({ code, stdout }).toEqual({ code: 1, stdout: "" });
    expect(stderr.trim().split("\n").filter((line) => line.includes("wrong-digest"))).toEqual([
      expect.stringMatching(/^toolbridge: skill "wrong-digest" of server "docs" was not loaded: skill:\/\/wrong-digest\/SKILL\.md has digest sha256:[0-9a-f]{64}; the skill entry lists sha256:[0-9a-f]{64}$/),
    ]);
  }, 60_000);

  it("in the chat, /skills lists them and /skills NAME loads one into the conversation", async () => {
    // No model request is made: slash commands only.
    const { code, stdout } = await runCli(["chat", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"], { cwd: dir, input: "/skills\n/skills release-notes\n" });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^release-notes\s+docs\s+1\s+Write release notes from a list of merged changes$/m);
    expect(stdout).toContain('loaded the skill "release-notes" from server "docs" (130 characters)');
  }, 60_000);
});
