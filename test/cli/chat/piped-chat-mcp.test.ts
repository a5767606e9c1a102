import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { startVllmServer, type RecordedRequest, type VllmServer } from "../../support/vllm-server.js";

/** `toolbridge chat` with piped stdin: prompt commands and @uri mentions work there too. */

const TOY = join(import.meta.dirname, "../../fixtures/servers/toy-server.mjs");
let home: string;
let config: string;
let server: VllmServer | undefined;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "toolbridge-piped-mcp-"));
  config = join(home, "toy.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { toy: { command: process.execPath, args: [TOY, "--name", "alpha"], trust: true } } }));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const lastUser = (request: RecordedRequest | undefined) =>
  ((request?.body?.messages ?? []) as Array<{ role: string; content: unknown }>).filter((m) => m.role === "user").at(-1)?.content;

describe("piped chat: MCP prompts and resources", () => {
  it("sends a prompt command's messages and a message with the resource it mentions", async () => {
    server = await startVllmServer({ replies: [{ text: "Hello back." }, { text: "Noted." }] });
    const result = await runCli(["chat", "--base-url", server.url, "--config", config], { cwd: home, input: "/greet Ada\nwhat is @toy://alpha/info?\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Hello back.\nNoted.\n");
    expect(lastUser(server.chatRequests[0])).toBe("Hello Ada, from alpha");
    expect(lastUser(server.chatRequests[1])).toBe("what is @toy://alpha/info?\n\n[resource toy://alpha/info (text/plain)]\ninfo of alpha");
    expect(result.stderr).toContain("user:\nHello Ada, from alpha");
    expect(result.stderr).toContain("@toy://alpha/info: attached, text/plain, 13 characters");
  });

  it("explains a missing argument and goes on", async () => {
    server = await startVllmServer({ replies: [{ text: "Fine." }] });
    const result = await runCli(["chat", "--base-url", server.url, "--config", config], { cwd: home, input: "/greet\nhi\n" });
    expect(result.stderr).toContain('toolbridge: prompt "greet" needs the argument "who"; its arguments (* required): who*; e.g. /greet <who>');
    expect(server.chatRequests).toHaveLength(1);
    expect(result.stdout).toBe("Fine.\n");
  });
});
