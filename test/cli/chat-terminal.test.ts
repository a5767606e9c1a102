import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { waitUntil } from "../mcp/processes.js";
import { processesIn } from "../support/processes.js";
import { startVllmServer, type VllmServer } from "../support/vllm-server.js";

/**
 * The chat in a real terminal (tmux): a server's sampling request is shown with who asks and
 * what, answered "always for this server" on the chat's own line, and /roots changes the roots.
 */

const ROOT = resolve(__dirname, "..", "..");
const CLI = join(ROOT, "dist", "cli", "main.js");
const EVERYTHING = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
const SOCKET = `toolbridge-test-${process.pid}`;

let work: string;
let server: VllmServer | undefined;

function tmux(...args: string[]): string {
  return execFileSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8" });
}

const screen = (): string => tmux("capture-pane", "-p", "-J", "-t", "chat");

async function waitFor(text: string | RegExp): Promise<void> {
  await waitUntil(() => (typeof text === "string" ? screen().includes(text) : text.test(screen())), 30_000, `"${String(text)}" on the screen`).catch(
    (error: unknown) => {
      throw new Error(`${(error as Error).message}; the screen:\n${screen()}`);
    },
  );
}

beforeAll(() => {
  work = realpathSync(mkdtempSync(join(tmpdir(), "toolbridge-chat-tty-")));
});

afterEach(async () => {
  try {
    tmux("kill-server");
  } catch {
    // already gone
  }
  await server?.close();
  server = undefined;
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("chat on a terminal", () => {
  it("asks before a server samples, and 'always' lets the server sample for the rest of the session", async () => {
    server = await startVllmServer({
      replies: [
        { toolCalls: [{ name: "trigger-sampling-request", arguments: { prompt: "a poem" } }] },
        { text: "Roses are red." },
        { text: "The server has its poem." },
        { toolCalls: [{ name: "trigger-sampling-request", arguments: { prompt: "another" } }] },
        { text: "Violets are blue." },
        { text: "And a second one." },
      ],
    });
    const cwd = mkdtempSync(join(work, "run-"));
    const config = join(cwd, "toolbridge.json");
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], autoApprove: ["trigger-sampling-request"] } } }),
    );
    const command = [process.execPath, CLI, "chat", "--base-url", server.url, "--config", config].map((part) => `'${part}'`).join(" ");
    tmux("new-session", "-d", "-s", "chat", "-x", "160", "-y", "50", "-c", cwd, `env NO_COLOR=1 HOME='${work}' ${command}`);
    await waitFor("/help for commands");
    tmux("send-keys", "-t", "chat", "write a poem through the server", "Enter");
    await waitFor("allow? [y]es once, [a]lways for this server, [N]o:");
    const asked = screen();
    expect(asked).toContain('server "everything" asks to use the model Qwen/Qwen3-8B, up to 100 tokens');
    expect(asked).toContain("user: Resource trigger-sampling-request context: a poem");
    tmux("send-keys", "-t", "chat", "a", "Enter");
    await waitFor("The server has its poem.");
    const chats = server.requests.filter((r) => r.path === "/v1/chat/completions");
    expect(JSON.stringify(chats[1]?.body.messages)).toContain("a poem");
    tmux("send-keys", "-t", "chat", "one more", "Enter");
    await waitFor("And a second one.");
    expect(screen().match(/allow\? \[y\]es once/g)).toHaveLength(1);

    tmux("send-keys", "-t", "chat", "/roots add /usr", "Enter");
    await waitFor("file:///usr");
    tmux("send-keys", "-t", "chat", "/exit", "Enter");
    await waitUntil(() => processesIn(cwd).length === 0, 10_000, "the chat and its server to end");
  }, 90_000);
});
