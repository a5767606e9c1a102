import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../gateway/harness.js";
import { CHROMIUM, DESKTOP, lastAnswer, openChat, openPage, PHONE, say, seriousViolations, shot, type Chat } from "./browser.js";

/**
 * A published MCP App, as its authors ship it on npm: the MCP Apps extension's own vanilla-JS
 * example (@modelcontextprotocol/server-basic-vanillajs, over stdio). Its `get-time` tool names
 * a `ui://` page built with the extension's App SDK; the page shows it in the sandboxed frame,
 * hands it the tool's result, and runs the app's own call of `get-time`.
 */

const EXAMPLE = join(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js");
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe.skipIf(!existsSync(CHROMIUM))("a published MCP App in the web chat", () => {
  let chat: Chat;
  let harness: Harness;
  let page: Page;

  beforeAll(async () => {
    // Its one tool runs unasked: the frame, the handshake and the app's own call are what is tested here (approval is in mcp-features).
    chat = await openChat({ servers: { basic: { command: process.execPath, args: [EXAMPLE, "--stdio"], autoApprove: ["get-time"] } }, approve: "ask" }, DESKTOP);
    ({ harness, page } = chat);
  }, 60_000);
  afterAll(() => chat?.close());

  /** The time the tool answered, as the model was sent it (the last tool message of the last request). */
  const toolTime = () => {
    const messages = (harness.upstream.chatRequests.at(-1)?.body.messages ?? []) as { role: string; content: unknown }[];
    const content = messages.filter((message) => message.role === "tool").at(-1)?.content;
    return typeof content === "string" ? content : JSON.stringify(content);
  };

  it("shows the example app beside its result: the tool's result reaches it, and its own tool call runs", { timeout: 60_000 }, async () => {
    harness.upstream.push({ toolCalls: [{ name: "get-time", arguments: {} }] }, { text: "That is the server's time." });
    await say(page, "What time is it on the server?");
    const iframe = page.locator(".app-frame iframe");
    await iframe.waitFor({ timeout: 15_000 });
    expect(await iframe.getAttribute("sandbox")).toBe("allow-scripts allow-forms");
    const app = page.frameLocator(".app-frame iframe");
    // The app read the result the host handed it over the extension's bridge: the time the model was given too.
    await expect.poll(() => app.locator("#server-time").textContent(), { timeout: 15_000 }).toMatch(ISO_TIME);
    await expect.poll(() => lastAnswer(page).textContent(), { timeout: 15_000 }).toContain("That is the server's time.");
    const shown = (await app.locator("#server-time").textContent()) ?? "";
    expect(toolTime()).toContain(shown);
    // The app's own call of get-time goes through the host to the server, and its answer comes back to the app.
    await app.getByRole("button", { name: "Get Server Time" }).click();
    await expect.poll(() => app.locator("#server-time").textContent(), { timeout: 15_000 }).not.toBe(shown);
    expect((await app.locator("#server-time").textContent()) ?? "").toMatch(ISO_TIME);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "published-app-desktop");
  });

  it("shows the example app on a phone", { timeout: 60_000 }, async () => {
    const { page } = await openPage(chat.browser, harness.gateway.url, PHONE);
    await page.locator(".empty-servers").waitFor();
    harness.upstream.push({ toolCalls: [{ name: "get-time", arguments: {} }] }, { text: "The time, on a phone." });
    await say(page, "Server time?");
    await expect.poll(() => page.frameLocator(".app-frame iframe").locator("#server-time").textContent(), { timeout: 15_000 }).toMatch(ISO_TIME);
    await page.locator(".app-frame").scrollIntoViewIfNeeded();
    await shot(page, "published-app-phone");
  });
});
