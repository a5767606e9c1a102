import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { chat as chatIn, home, useChatTerminal, vllm } from "../../support/chat-terminal.js";
import type { Tmux } from "../../support/tmux.js";
import type { RecordedRequest, VllmReply, VllmServer } from "../../support/vllm-server.js";

/**
 * The chat's MCP side in a real terminal, against server-everything: its prompts as slash
 * commands, Tab completion through `completion/complete`, and `@uri` resource mentions.
 * Each test asserts on the screen and on what the scripted model server received.
 */

const EVERYTHING = fileURLToPath(new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const TOY = fileURLToPath(new URL("../../../test/fixtures/servers/toy-server.mjs", import.meta.url));
const FEATURES_DOC = fileURLToPath(new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/docs/features.md", import.meta.url));

useChatTerminal();
let config: string;

beforeAll(() => {
  config = join(home, "everything.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], trust: true } } }));
});

async function chat(replies: VllmReply[], configFile = config, connected = /everything: \d+ tools/): Promise<{ s: VllmServer; t: Tmux }> {
  const s = await vllm(replies);
  const t = await chatIn(s, configFile);
  // The prompts and resources are there once the server has connected.
  await t.waitFor(connected, "the servers to connect");
  return { s, t };
}

type WireMessage = { role: string; content: unknown };
const messagesOf = (request: RecordedRequest | undefined): WireMessage[] => (request?.body?.messages ?? []) as WireMessage[];
const lastUser = (request: RecordedRequest | undefined) => messagesOf(request).filter((m) => m.role === "user").at(-1)?.content;
/** The text of a message's content, whether a string or parts. */
const textOf = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? "").join("\n") : "";

/** The input box's line: what is typed now (a trailing space cannot be seen; the next word typed shows it). */
const inputLine = (screen: string): string =>
  screen
    .split("\n")
    .findLast((line) => line.startsWith("│ › "))
    ?.replace(/^│ › /, "")
    .replace(/\s*│\s*$/, "") ?? "";

describe("toolbridge chat in a terminal: servers' prompts as slash commands", () => {
  it("sends a prompt's messages as the user's turn, its arguments given in order", async () => {
    const { s, t } = await chat([{ text: "Sunny." }]);
    await t.type("/args-prompt Taipei Taiwan");
    await t.press("Enter");
    await t.waitFor(/Sunny\./, "the answer");
    expect(s.chatRequests).toHaveLength(1);
    expect(lastUser(s.chatRequests[0])).toBe("What's weather in Taipei, Taiwan?");
    // What was sent is shown.
    await t.waitFor(/user:\s+What's weather in Taipei, Taiwan\?/, "the prompt's message on screen");
  });

  it("takes name=value arguments and explains a missing required one from the prompt's own list", async () => {
    const { s, t } = await chat([{ text: "Cloudy." }]);
    await t.type("/args-prompt state=Oregon");
    await t.press("Enter");
    await t.waitFor(/needs the argument "city"[\s\S]*\/args-prompt <city> \[state\]/, "the missing argument explained");
    expect(s.chatRequests).toHaveLength(0);
    await t.type('/args-prompt state=Oregon "Hood River"');
    await t.press("Enter");
    await t.waitFor(/Cloudy\./, "the answer");
    expect(lastUser(s.chatRequests[0])).toBe("What's weather in Hood River, Oregon?");
  });

  it("lists the servers' prompts in /help", async () => {
    const { t } = await chat([]);
    await t.type("/help");
    await t.press("Enter");
    await t.waitFor(/Server prompts[\s\S]*\/args-prompt <city> \[state\][\s\S]*\/completable-prompt <department> <name>/, "the prompt commands in /help");
  });
});

describe("toolbridge chat in a terminal: prompt commands of several servers", () => {
  it("qualifies a prompt two servers offer, and follows a prompt a server adds (list_changed)", async () => {
    const toys = join(home, "toys.json");
    const toy = (name: string) => ({ command: process.execPath, args: [TOY, "--name", name], trust: true });
    writeFileSync(toys, JSON.stringify({ mcpServers: { alpha: toy("alpha"), beta: toy("beta") } }));
    const { s, t } = await chat(
      [{ text: "Hi." }, { toolCalls: [{ name: "alpha__add-prompt", arguments: { prompt: "brand-new" } }] }, { text: "Added." }, { text: "Fresh." }],
      toys,
      /alpha: \d+ tools[\s\S]*beta: \d+ tools|beta: \d+ tools[\s\S]*alpha: \d+ tools/,
    );
    await t.type("/beta:greet World");
    await t.press("Enter");
    await t.waitFor(/Hi\./, "the answer");
    expect(lastUser(s.chatRequests[0])).toBe("Hello World, from beta");
    await t.type("/greet x");
    await t.press("Enter");
    await t.waitFor(/unknown command \/greet/, "the ambiguous short name refused");
    await t.type("add a prompt");
    await t.press("Enter");
    await t.waitFor(/Added\./, "the tool round");
    await t.type("/bra");
    await t.press("Tab");
    await t.waitFor((screen) => inputLine(screen) === "/brand-new", "the new prompt completed");
    await t.press("Enter");
    await t.waitFor(/Fresh\./, "the new prompt's answer");
    expect(lastUser(s.chatRequests[3])).toBe("brand-new");
  });
});

describe("toolbridge chat in a terminal: Tab completion", () => {
  it("completes a slash command, then a prompt's arguments through completion/complete with the earlier ones as context", async () => {
    const { s, t } = await chat([{ text: "Done." }]);
    await t.type("/compl");
    await t.press("Tab");
    await t.waitFor((screen) => inputLine(screen) === "/completable-prompt", "the command completed");
    await t.type("Eng");
    await t.waitFor((screen) => inputLine(screen) === "/completable-prompt Eng", "a space after the command");
    await t.press("Tab");
    await t.waitFor((screen) => inputLine(screen) === "/completable-prompt Engineering", "the department completed by the server");
    // Engineering's people, which the server offers only with the department as context.
    await t.press("Tab");
    await t.waitFor(/❯ Alice[\s\S]*Bob[\s\S]*Charlie/, "the list of candidates");
    await t.press("Down");
    await t.waitFor(/❯ Bob/, "the highlight moved");
    await t.press("Enter");
    await t.waitFor((screen) => inputLine(screen) === "/completable-prompt Engineering Bob", "the chosen name put in");
    expect(s.chatRequests).toHaveLength(0);
    await t.press("Enter");
    await t.waitFor(/Done\./, "the answer");
    expect(lastUser(s.chatRequests[0])).toBe("Please promote Bob to the head of the Engineering team.");
  });

  it("completes while an answer streams, and the completed command runs after it", async () => {
    const { s, t } = await chat([{ text: "word ".repeat(150).trim(), chunkDelayMs: 30 }, { text: "Promoted." }]);
    await t.type("tell me a story");
    await t.press("Enter");
    await t.waitFor(/word word/, "the answer to stream");
    await t.type("/completable-prompt Sales D");
    await t.press("Tab");
    await t.waitFor((screen) => inputLine(screen) === "/completable-prompt Sales David", "the name completed during the answer");
    await t.press("Enter");
    await t.waitFor(/Promoted\./, "the prompt's answer");
    expect(s.chatRequests).toHaveLength(2);
    expect(lastUser(s.chatRequests[1])).toBe("Please promote David to the head of the Sales team.");
  });

  it("closes the list with Esc and keeps what was typed", async () => {
    const { t } = await chat([]);
    await t.type("/completable-prompt Sales ");
    await t.press("Tab");
    await t.waitFor(/❯ David/, "the list");
    await t.press("Escape");
    await t.waitFor((screen) => !/❯ David/.test(screen), "the list closed");
    expect(inputLine(await t.screen())).toMatch(/^\/completable-prompt Sales\s*$/);
  });

  it("completes an @ resource URI from the server's resource list", async () => {
    const { t } = await chat([]);
    await t.type("read @demo://resource/static/document/feat");
    await t.press("Tab");
    await t.waitFor((screen) => inputLine(screen) === "read @demo://resource/static/document/features.md", "the URI completed");
    await t.type("now");
    await t.waitFor((screen) => inputLine(screen) === "read @demo://resource/static/document/features.md now", "a space after the URI");
  });
});

describe("toolbridge chat in a terminal: resource templates", () => {
  it("completes a template's literal part, then its variable through completion/complete, and attaches what it names", async () => {
    const { s, t } = await chat([{ text: "Got it." }]);
    await t.type("@demo://resource/dynamic/te");
    await t.press("Tab");
    await t.waitFor((screen) => inputLine(screen) === "@demo://resource/dynamic/text/", "the template's literal part");
    // Text after the cursor shows the space the completion puts in.
    await t.type("7 tail");
    await t.press("Left", "Left", "Left", "Left", "Left");
    await t.press("Tab");
    // The server accepts 7 as a resource id: one candidate, put in with a space after it.
    await t.waitFor((screen) => inputLine(screen) === "@demo://resource/dynamic/text/7  tail", "the variable completed");
    await t.press("Enter");
    await t.waitFor(/Got it\./, "the answer");
    expect(textOf(lastUser(s.chatRequests[0]))).toContain("Resource 7: This is a plaintext resource");
  });
});

describe("toolbridge chat in a terminal: @uri mentions", () => {
  it("attaches the resource's text to the message and says so", async () => {
    const { s, t } = await chat([{ text: "Read it." }]);
    await t.type("summarize @demo://resource/static/document/features.md please");
    await t.press("Enter");
    await t.waitFor(/Read it\./, "the answer");
    await t.waitFor(/@demo:\/\/resource\/static\/document\/features\.md: attached, text\/markdown/, "the attachment shown");
    const sent = textOf(lastUser(s.chatRequests[0]));
    expect(sent.startsWith("summarize @demo://resource/static/document/features.md please")).toBe(true);
    const { readFileSync } = await import("node:fs");
    expect(sent).toContain(readFileSync(FEATURES_DOC, "utf8").trim().split("\n")[0]);
    expect(sent).toContain("[resource demo://resource/static/document/features.md (text/markdown)]");
  });
});
