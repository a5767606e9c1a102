import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startGeminiServer, type GeminiServer } from "../support/gemini-server.js";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";
import { startHarness, type Harness } from "./harness.js";

/**
 * Claude Code (`@anthropic-ai/claude-code`, its native binary from npm) with ANTHROPIC_BASE_URL
 * at the gateway, offline: its own tools come back to it as tool_use, the hub's run inside.
 */

const CLAUDE = fileURLToPath(new URL("../../node_modules/.bin/claude", import.meta.url));

let harness: Harness | undefined;
let gemini: GeminiServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await harness?.close();
  await gemini?.close();
  harness = gemini = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function claude(prompt: string, cwd: string, baseURL: string, model = DEFAULT_VLLM_MODEL): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // Only what it needs: a home of its own, the gateway, a dummy key, the model, nothing sent elsewhere.
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: cwd,
      ANTHROPIC_BASE_URL: baseURL,
      ANTHROPIC_API_KEY: "dummy-key",
      ANTHROPIC_MODEL: model,
      ANTHROPIC_SMALL_FAST_MODEL: model,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
    };
    // stdin closed, as `claude -p` wants it when nothing is piped in.
    const child = spawn(CLAUDE, ["-p", prompt], { cwd, env, stdio: ["ignore", "pipe", "pipe"], timeout: 90_000, killSignal: "SIGKILL" });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe("Claude Code through the gateway", () => {
  it("runs its own Read tool on the gateway's tool_use, and the hub's get-date inside, then answers", { timeout: 120_000 }, async () => {
    dir = mkdtempSync(join(tmpdir(), "toolbridge-claude-code-"));
    const note = join(dir, "note.txt");
    writeFileSync(note, "the meeting is in room 42\n");
    harness = await startHarness({
      replies: [
        { toolCalls: [{ name: "Read", arguments: { file_path: note } }] },
        { toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }] },
        { text: "Room 42, today." },
      ],
    });
    const result = await claude("Where is the meeting, and what is the date?", dir, harness.gateway.url);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe("Room 42, today.");
    expect(result.code).toBe(0);
    const [first, second, third] = harness.upstream.chatRequests.map((request) => request.body);
    // Claude Code's tools and the hub's were offered together.
    const offered = (first.tools as { function: { name: string } }[]).map((tool) => tool.function.name);
    expect(offered).toEqual(expect.arrayContaining(["Read", "Bash", "get-date"]));
    // Claude Code ran Read and sent its result back; the gateway went on from it.
    expect(JSON.stringify(second.messages.at(-1))).toContain("the meeting is in room 42");
    expect(third.messages.at(-1)).toMatchObject({ role: "tool", content: expect.stringContaining(String(new Date().getFullYear())) });
  });

  it("gives a Gemini 3 model its thought signature back with the call Claude Code ran, carried in the tool_use id", { timeout: 120_000 }, async () => {
    dir = mkdtempSync(join(tmpdir(), "toolbridge-claude-code-"));
    const note = join(dir, "note.txt");
    writeFileSync(note, "the meeting is in room 42\n");
    // The scripted server refuses, as Gemini 3 does, a turn whose call came back without its signature.
    gemini = await startGeminiServer({ replies: [{ functionCalls: [{ name: "Read", args: { file_path: note }, thoughtSignature: "CiQBcsjaf+Sig/x==" }] }, { text: "Room 42." }] });
    harness = await startHarness({ llm: { provider: "gemini", baseURL: gemini.url, model: "gemini-3-flash-preview", apiKey: "test-key" } });
    const result = await claude("Where is the meeting?", dir, harness.gateway.url, "gemini-3-flash-preview");
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe("Room 42.");
    expect(result.code).toBe(0);
    const parts = (gemini.requests[1]?.body.contents as Array<{ parts: Array<Record<string, unknown>> }>).flatMap((content) => content.parts);
    expect(parts.find((part) => part.functionCall)).toEqual({ functionCall: { name: "Read", args: { file_path: note } }, thoughtSignature: "CiQBcsjaf+Sig/x==" });
    expect(JSON.stringify(parts.find((part) => part.functionResponse))).toContain("the meeting is in room 42");
  });
});
