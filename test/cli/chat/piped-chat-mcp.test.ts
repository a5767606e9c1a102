import { mkdtempSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { cliTestSetup, writeConfig } from "../../support/cli-setup.js";
import type { RecordedRequest } from "../../support/vllm-server.js";

/** `toolbridge chat` with piped stdin: prompt commands and @uri mentions work there too, and a saved conversation carries across runs. */

const TOY = join(import.meta.dirname, "../../fixtures/servers/toy-server.mjs");
let home: string;
let config: string;
const { startModel } = cliTestSetup("toolbridge-piped-mcp-", (dir) => {
  home = dir;
  config = writeConfig(dir, "toy.json", { toy: { command: process.execPath, args: [TOY, "--name", "alpha"], trust: true } });
});

const lastUser = (request: RecordedRequest | undefined) =>
  ((request?.body?.messages ?? []) as Array<{ role: string; content: unknown }>).filter((m) => m.role === "user").at(-1)?.content;

describe("piped chat: MCP prompts and resources", () => {
  it("sends a prompt command's messages and a message with the resource it mentions", async () => {
    const server = await startModel({ replies: [{ text: "Hello back." }, { text: "Noted." }] });
    const result = await runCli(["chat", "--base-url", server.url, "--config", config], { cwd: home, input: "/greet Ada\nwhat is @toy://alpha/info?\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Hello back.\nNoted.\n");
    expect(lastUser(server.chatRequests[0])).toBe("Hello Ada, from alpha");
    expect(lastUser(server.chatRequests[1])).toBe("what is @toy://alpha/info?\n\n[resource toy://alpha/info (text/plain)]\ninfo of alpha");
    expect(result.stderr).toContain("user:\nHello Ada, from alpha");
    expect(result.stderr).toContain("@toy://alpha/info: attached, text/plain, 13 characters");
  });

  it("explains a missing argument and goes on", async () => {
    const server = await startModel({ replies: [{ text: "Fine." }] });
    const result = await runCli(["chat", "--base-url", server.url, "--config", config], { cwd: home, input: "/greet\nhi\n" });
    expect(result.stderr).toContain('toolbridge: prompt "greet" needs the argument "who"; its arguments (* required): who*; e.g. /greet <who>');
    expect(server.chatRequests).toHaveLength(1);
    expect(result.stdout).toBe("Fine.\n");
  });
});

const contents = (request: RecordedRequest | undefined): unknown[] => ((request?.body?.messages ?? []) as Array<{ role: string; content: unknown }>).filter((m) => m.role !== "system").map((m) => m.content);

// Each test runs the CLI three or four times, each starting its server.
describe("piped chat and saved conversations", () => {
  it("goes on with the last conversation on --continue and saves it back, run after run", async () => {
    const cwd = mkdtempSync(join(home, "run-"));
    const s = await startModel({ replies: [{ text: "Noted: green." }, { text: "You said green." }, { text: "Still green." }] });
    const chat = (input: string) => runCli(["chat", "--continue", "--base-url", s.url, "--config", config], { cwd, input });
    const first = await chat("my colour is green\n");
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("no saved conversation yet; starting a new one");
    const second = await chat("what is my colour?\n");
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/resumed [\w-]+: 2 messages/);
    expect(contents(s.chatRequests[1])).toEqual(["my colour is green", "Noted: green.", "what is my colour?"]);
    const third = await chat("and now?\n");
    expect(third.stderr).toMatch(/resumed [\w-]+: 4 messages/);
    expect(readdirSync(join(cwd, ".local", "state", "toolbridge", "sessions")).filter((name) => name.endsWith(".jsonl"))).toHaveLength(1);
  }, 120_000);

  it("goes on with the conversation --resume ID names, and says plainly that --resume alone needs a terminal", async () => {
    const cwd = mkdtempSync(join(home, "run-"));
    const s = await startModel({ replies: [{ text: "Noted: blue." }, { text: "You said blue." }] });
    await runCli(["chat", "--continue", "--base-url", s.url, "--config", config], { cwd, input: "my colour is blue\n" });
    const [file] = readdirSync(join(cwd, ".local", "state", "toolbridge", "sessions")).filter((name) => name.endsWith(".jsonl"));
    const id = file!.slice(0, -".jsonl".length);
    const resumed = await runCli(["chat", "--resume", id, "--base-url", s.url, "--config", config], { cwd, input: "what is my colour?\n" });
    expect(resumed.code).toBe(0);
    expect(contents(s.chatRequests[1])).toEqual(["my colour is blue", "Noted: blue.", "what is my colour?"]);
    const bare = await runCli(["chat", "--resume", "--base-url", s.url, "--config", config], { cwd, input: "hi\n" });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/--resume without an ID .* give the ID .* or use --continue/);
    const unknown = await runCli(["chat", "--resume", "nope", "--base-url", s.url, "--config", config], { cwd, input: "hi\n" });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no saved session "nope"');
    expect(s.chatRequests).toHaveLength(2);
  }, 120_000);
});
