import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "../../support/cli.js";
import { startVllmServer, type RecordedRequest, type VllmReply, type VllmServer } from "../../support/vllm-server.js";

/** `toolbridge chat` with piped input, carrying one conversation across runs with --continue and --resume ID. */

let dir: string;
let timeOnly: string;
let model: VllmServer | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbridge-piped-sessions-"));
  timeOnly = join(dir, "time-only.json");
  writeFileSync(timeOnly, JSON.stringify({ mcpServers: { time: { command: process.execPath, args: [CLI, "serve", "time"], trust: true } } }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await model?.close();
  model = undefined;
});

async function scripted(replies: VllmReply[]): Promise<VllmServer> {
  model = await startVllmServer({ replies });
  return model;
}

const contents = (request: RecordedRequest | undefined): unknown[] => ((request?.body?.messages ?? []) as Array<{ role: string; content: unknown }>).filter((m) => m.role !== "system").map((m) => m.content);

describe("piped chat and saved conversations", () => {
  it("goes on with the last conversation on --continue and saves it back, run after run", async () => {
    const home = mkdtempSync(join(dir, "home-"));
    const s = await scripted([{ text: "Noted: green." }, { text: "You said green." }, { text: "Still green." }]);
    const chat = (input: string) => runCli(["chat", "--continue", "--base-url", s.url, "--config", timeOnly], { cwd: home, input });
    const first = await chat("my colour is green\n");
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("no saved conversation yet; starting a new one");
    const second = await chat("what is my colour?\n");
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/resumed [\w-]+: 2 messages/);
    expect(contents(s.chatRequests[1])).toEqual(["my colour is green", "Noted: green.", "what is my colour?"]);
    const third = await chat("and now?\n");
    expect(third.stderr).toMatch(/resumed [\w-]+: 4 messages/);
    expect(readdirSync(join(home, ".local", "state", "toolbridge", "sessions")).filter((name) => name.endsWith(".jsonl"))).toHaveLength(1);
  });

  it("goes on with the conversation --resume ID names, and says plainly that --resume alone needs a terminal", async () => {
    const home = mkdtempSync(join(dir, "home-"));
    const s = await scripted([{ text: "Noted: blue." }, { text: "You said blue." }]);
    await runCli(["chat", "--continue", "--base-url", s.url, "--config", timeOnly], { cwd: home, input: "my colour is blue\n" });
    const [file] = readdirSync(join(home, ".local", "state", "toolbridge", "sessions")).filter((name) => name.endsWith(".jsonl"));
    const id = file!.slice(0, -".jsonl".length);
    const resumed = await runCli(["chat", "--resume", id, "--base-url", s.url, "--config", timeOnly], { cwd: home, input: "what is my colour?\n" });
    expect(resumed.code).toBe(0);
    expect(contents(s.chatRequests[1])).toEqual(["my colour is blue", "Noted: blue.", "what is my colour?"]);
    const bare = await runCli(["chat", "--resume", "--base-url", s.url, "--config", timeOnly], { cwd: home, input: "hi\n" });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/--resume without an ID .* give the ID .* or use --continue/);
    const unknown = await runCli(["chat", "--resume", "nope", "--base-url", s.url, "--config", timeOnly], { cwd: home, input: "hi\n" });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no saved session "nope"');
    expect(s.chatRequests).toHaveLength(2);
  });
});
