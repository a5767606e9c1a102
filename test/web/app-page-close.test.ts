import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../gateway/harness.js";
import { CHROMIUM, DESKTOP, openChat, say, type Chat } from "./browser.js";

/**
 * An MCP App's page closed in headless Chromium: what the gateway held for it (the app's frame,
 * its tool call still running) is freed, as the gateway's metrics count it.
 */

const APP_SERVER = join(import.meta.dirname, "../fixtures/servers/app-server.mjs");

describe.skipIf(!existsSync(CHROMIUM))("an MCP App whose page closes", () => {
  let chat: Chat;
  let harness: Harness;
  let page: Page;

  beforeAll(async () => {
    chat = await openChat({ servers: { counter: { command: process.execPath, args: [APP_SERVER], autoApprove: ["show-counter", "hold"] } }, approve: "ask" }, DESKTOP);
    ({ harness, page } = chat);
  }, 60_000);
  afterAll(() => chat?.close());

  /** What the gateway holds for pages' apps (pages, frames, calls), from its /metrics. */
  const held = async () => {
    const text = await (await fetch(`${harness.gateway.url}/metrics`)).text();
    return Object.fromEntries([...text.matchAll(/^toolbridge_gateway_web_apps_held\{kind="(\w+)"\} (\d+)$/gm)].map(([, kind, count]) => [kind, Number(count)]));
  };

  it("frees the app's frame and stops its running tool call when the tab closes", { timeout: 60_000 }, async () => {
    harness.upstream.push({ toolCalls: [{ name: "show-counter", arguments: { start: 1 } }] }, { text: "Your counter." });
    await say(page, "A counter, please.");
    const app = page.frameLocator(".app-frame iframe");
    await expect.poll(() => app.locator("#count").textContent(), { timeout: 15_000 }).toBe("1");
    const frame = (await page.locator(".app-frame iframe").getAttribute("src")) ?? "";
    await app.locator("#hold").click();
    await expect.poll(held, { timeout: 15_000 }).toEqual({ pages: 1, frames: 1, calls: 1 });
    await page.close();
    await expect.poll(held, { timeout: 15_000 }).toEqual({ pages: 0, frames: 0, calls: 0 });
    expect((await fetch(`${harness.gateway.url}${frame}`)).status).toBe(404);
  });
});
