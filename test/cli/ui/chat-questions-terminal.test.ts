import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { chat as chatIn, home, useChatTerminal, vllm } from "../../support/chat-terminal.js";
import type { Tmux } from "../../support/tmux.js";
import { TestAuthServer, TestResourceServer } from "../../support/oauth-server.js";
import type { RecordedRequest, VllmReply, VllmServer } from "../../support/vllm-server.js";

/**
 * Servers' questions in `toolbridge chat` on a real terminal (tmux): server-everything asks
 * for sampling, a form and a URL while a tool the scripted model called runs; the dialog is
 * answered with keys, and the test reads what the server made of the answer in the tool
 * result the model receives next.
 */

const EVERYTHING = fileURLToPath(new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));

useChatTerminal();
let config: string;
let browser: string;
let opened: string;

beforeAll(() => {
  config = join(home, "everything.json");
  // Not trusted: its tools are allowed by name, its sampling is asked about.
  const tools = ["trigger-sampling-request", "trigger-elicitation-request", "trigger-url-elicitation"];
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], autoApprove: tools } } }));
  // A "browser" that writes down the URL it was given.
  opened = join(home, "opened.txt");
  browser = join(home, "browser.sh");
  writeFileSync(browser, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
  chmodSync(browser, 0o755);
});

async function chat(replies: VllmReply[], options: { config?: string; browser?: string } = {}): Promise<{ s: VllmServer; t: Tmux }> {
  const s = await vllm(replies);
  const t = await chatIn(s, options.config ?? config, [], 120, { rows: 50, env: { BROWSER: options.browser ?? browser } });
  await t.waitFor((screen) => !/starting servers/.test(screen), "the server to start");
  return { s, t };
}

type WireMessage = { role: string; content: unknown; tool_call_id?: string };
const messagesOf = (request: RecordedRequest | undefined): WireMessage[] => (request?.body?.messages ?? []) as WireMessage[];
/** The tool results in a request, as text. */
const toolResults = (request: RecordedRequest | undefined): string[] => messagesOf(request).filter((m) => m.role === "tool").map((m) => String(typeof m.content === "string" ? m.content : JSON.stringify(m.content)));

async function send(t: Tmux, text: string): Promise<void> {
  await t.type(text);
  await t.press("Enter");
}

describe("sampling in the chat", () => {
  it("shows who asks and what; allowed once, the model answers the server and the answer comes back in the tool result", async () => {
    const { s, t } = await chat([
      { toolCalls: [{ name: "trigger-sampling-request", arguments: { prompt: "name a colour", maxTokens: 64 } }] },
      { text: "Ultramarine." },
      { text: "The server heard back." },
    ]);
    await send(t, "sample something");
    const screen = await t.waitFor(/Server everything asks to use the model/, "the sampling dialog");
    expect(screen).toMatch(/up to 64 tokens/);
    expect(screen).toMatch(/system: You are a helpful test server\./);
    expect(screen).toMatch(/user: Resource trigger-sampling-request context: name a colour/);
    expect(s.chatRequests).toHaveLength(1);
    await t.type("y");
    await t.waitFor(/The server heard back\./, "the final answer");
    expect(s.chatRequests).toHaveLength(3);
    // The sampling request itself: the server's system prompt and message, its token limit.
    const sampling = s.chatRequests[1]?.body as { messages: WireMessage[]; max_tokens?: number; max_completion_tokens?: number };
    expect(sampling.messages[0]).toMatchObject({ role: "system", content: "You are a helpful test server." });
    expect(sampling.max_tokens ?? sampling.max_completion_tokens).toBe(64);
    expect(toolResults(s.chatRequests[2]).join("\n")).toContain("Ultramarine.");
  });

  it("denied, the server gets the user-rejected error and the model is not asked", async () => {
    const { s, t } = await chat([{ toolCalls: [{ name: "trigger-sampling-request", arguments: { prompt: "hi" } }] }, { text: "It was refused." }]);
    await send(t, "sample something");
    await t.waitFor(/asks to use the model/, "the sampling dialog");
    await t.type("n");
    await t.waitFor(/Reason/, "the reason field");
    await t.type("not now");
    await t.press("Enter");
    await t.waitFor(/It was refused\./, "the final answer");
    expect(s.chatRequests).toHaveLength(2);
    const result = toolResults(s.chatRequests[1]).join("\n");
    expect(result).toMatch(/User rejected sampling request: not now/);
  });
});

describe("elicitation forms in the chat", () => {
  it("fills server-everything's form with keys: defaults kept, a bad email shown inline, and the answers reach the server", async () => {
    const { s, t } = await chat([{ toolCalls: [{ name: "trigger-elicitation-request", arguments: {} }] }, { text: "Thanks for the details." }]);
    await send(t, "ask me");
    const screen = await t.waitFor(/Server everything asks: Please provide inputs/, "the form");
    // Defaults are filled in.
    expect(screen).toMatch(/It was a dark and stormy night\./);
    expect(screen).toMatch(/Integer: 42/);
    await t.type("Ada Lovelace");
    await t.press("Tab", "Space", "Tab", "Tab");
    await t.type("not-an-email");
    await t.press("Tab");
    await t.waitFor(/expected an email address/, "the email's message");
    await t.press("BTab");
    for (let i = 0; i < "not-an-email".length; i++) await t.press("BSpace");
    await t.type("ada@example.com");
    // Down to the buttons: ten more fields, then Accept.
    for (let i = 0; i < 10; i++) await t.press("Tab");
    await t.waitFor((text) => !/expected an email address/.test(text), "the message to go");
    await t.press("Enter");
    await t.waitFor(/Thanks for the details\./, "the final answer");
    const result = toolResults(s.chatRequests[1]).join("\n");
    expect(result).toContain("- Name: Ada Lovelace");
    expect(result).toContain("- Agreed to terms: true");
    expect(result).toContain("- Email: ada@example.com");
    expect(result).toContain("- Favorite Integer: 42");
    expect(result).toMatch(/untitledMultipleSelectEnum[^\]]*Guitar/);
  });

  it("Esc cancels the form, and what was typed in the input before it is still there", async () => {
    // The tool call comes late enough for the draft to be typed first.
    const { s, t } = await chat([{ toolCalls: [{ name: "trigger-elicitation-request", arguments: {} }], delayMs: 1500 }, { text: "Cancelled, fine." }, { text: "Got the draft." }]);
    await send(t, "ask me");
    await t.type("my draft");
    await t.waitFor(/my draft/, "the draft in the input");
    await t.waitFor(/Please provide inputs/, "the form");
    await t.press("Escape");
    await t.waitFor(/Cancelled, fine\./, "the answer");
    expect(toolResults(s.chatRequests[1]).join("\n")).toContain("User cancelled");
    await t.waitFor(/my draft/, "the draft in the input");
    await t.press("Enter");
    await t.waitFor(/Got the draft\./, "the draft's answer");
    const last = messagesOf(s.chatRequests[2]).filter((m) => m.role === "user").at(-1);
    expect(last?.content).toBe("my draft");
  });
});

describe("URL elicitation in the chat", () => {
  it("shows the URL and who asks, and opens it only when the person says yes", async () => {
    const { s, t } = await chat([
      { toolCalls: [{ name: "trigger-url-elicitation", arguments: { url: "https://example.com/first", message: "Sign the form" } }] },
      { text: "Declined." },
      { toolCalls: [{ name: "trigger-url-elicitation", arguments: { url: "https://example.com/second", message: "Sign the form" } }] },
      { text: "Opened." },
    ]);
    await send(t, "first");
    const screen = await t.waitFor(/Server everything asks you to open a page: Sign the form/, "the URL dialog");
    expect(screen).toContain("https://example.com/first");
    await t.type("n");
    await t.waitFor(/Declined\./, "the answer");
    expect(toolResults(s.chatRequests[1]).join("\n")).toContain("User declined to open the URL");
    expect(existsSync(opened)).toBe(false);
    await send(t, "second");
    await t.waitFor(/example\.com\/second/, "the second dialog");
    await t.type("y");
    await t.waitFor(/Opened\./, "the answer");
    expect(toolResults(s.chatRequests[3]).join("\n")).toContain("User completed the URL elicitation flow");
    expect(readFileSync(opened, "utf8")).toBe("https://example.com/second");
  });
});

describe("several questions at once", () => {
  it("asks them one at a time, in order, and each answer reaches its server", async () => {
    const { s, t } = await chat([
      {
        toolCalls: [
          { name: "trigger-url-elicitation", arguments: { url: "https://example.com/one", message: "First question" } },
          { name: "trigger-sampling-request", arguments: { prompt: "second question" } },
        ],
      },
      { text: "Sampled answer." },
      { text: "Both answered." },
    ]);
    await send(t, "two at once");
    // The two tools run at once; whichever question comes first is on screen, the other waits.
    const first = await t.waitFor(/1 more question waiting/, "the first dialog");
    const urlFirst = /First question/.test(first);
    expect(/asks to use the model/.test(first)).toBe(!urlFirst);
    await t.type(urlFirst ? "n" : "y");
    await t.waitFor(urlFirst ? /asks to use the model/ : /First question/, "the second dialog");
    expect(await t.screen()).not.toMatch(/more question waiting/);
    await t.type(urlFirst ? "y" : "n");
    await t.waitFor(/Both answered\./, "the final answer");
    const results = toolResults(s.chatRequests[2]).join("\n");
    expect(results).toContain("User declined to open the URL");
    expect(results).toContain("Sampled answer.");
  });
});

describe("a server that needs a login", () => {
  it("is offered the browser login after a turn, and with a yes is logged in and its tools join", async () => {
    const auth = await new TestAuthServer().start();
    const resource = await new TestResourceServer(auth).start();
    try {
      const remote = join(home, "remote.json");
      writeFileSync(remote, JSON.stringify({ mcpServers: { remote: { url: resource.url } } }));
      // A browser that follows the authorization URL back to the chat's loopback receiver.
      writeFileSync(join(home, "follow.mjs"), "await (await fetch(process.argv[2])).text();\n");
      const { t } = await chat([{ text: "Hello." }], { config: remote, browser: `${process.execPath} ${join(home, "follow.mjs")}` });
      expect(auth.authorizeRequests).toHaveLength(0);
      await send(t, "hi");
      await t.waitFor(/Hello\./, "the answer");
      await t.waitFor(/Server remote needs you to log in \(OAuth\) in your browser/, "the login offer");
      expect(auth.authorizeRequests).toHaveLength(0);
      await t.type("y");
      await t.waitFor(/remote: logged in/, "the login");
      expect(auth.authorizeRequests).toHaveLength(1);
      await send(t, "/servers");
      await t.waitFor(/remote\s+streamable-http\s+connected\s+2\b/, "the server connected with its tools");
    } finally {
      await resource.stop();
      await auth.stop();
    }
  });
});
