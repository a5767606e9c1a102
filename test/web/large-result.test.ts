import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DESKTOP, lastAnswer, openChat, say, shot, type Chat } from "./browser.js";

/** A tool result of megabytes in the web chat: kept (cut) when the conversation is saved, drawn a part at a time. */

const APP_SERVER = join(import.meta.dirname, "../fixtures/servers/app-server.mjs");

describe("a tool result of megabytes in the web chat", () => {
  let chat: Chat;

  beforeAll(async () => {
    chat = await openChat({ servers: { counter: { command: process.execPath, args: [APP_SERVER], trust: true } }, approve: "ask" }, DESKTOP);
  }, 60_000);
  afterAll(async () => chat?.close());

  it("is drawn 64 kB at a time with Show more, and its conversation is saved with it cut, said on the page, and there after a reload", async () => {
    const { harness, page } = chat;
    harness.upstream.push({ toolCalls: [{ name: "big-text", arguments: { mb: 8 } }] }, { text: "That was long." });
    await say(page, "Read the big text.");
    await expect.poll(() => lastAnswer(page).textContent(), { timeout: 30_000 }).toContain("That was long.");
    // Saved all the same, cut, and the page says so.
    await expect.poll(() => page.locator(".notice").textContent(), { timeout: 15_000 }).toContain("1 tool result is longer than 256 kB: saved in this browser cut to that");
    await lastAnswer(page).locator(".tool-head").click();
    const result = lastAnswer(page).locator(".tool-body .result-text");
    expect(await result.evaluate((pre) => pre.textContent?.length)).toBe(64 * 1024);
    const more = lastAnswer(page).locator(".result-more");
    expect(await more.textContent()).toContain("64 kB of 8192 kB shown");
    await more.getByRole("button", { name: "Show more" }).click();
    expect(await result.evaluate((pre) => pre.textContent?.length)).toBe(128 * 1024);
    await shot(page, "large-result-desktop");
    await page.reload();
    await page.locator(".conv-item").first().click();
    await expect.poll(() => lastAnswer(page).textContent(), { timeout: 15_000 }).toContain("That was long.");
    await lastAnswer(page).locator(".tool-head").click();
    // 256 kB kept, then the mark: four parts of 64 kB, and the rest.
    for (let part = 0; part < 4; part++) await lastAnswer(page).getByRole("button", { name: "Show more" }).click();
    expect(await lastAnswer(page).locator(".tool-body .result-text").textContent()).toContain("[cut when saved: 256.0 kB of 8192.0 kB kept in this browser]");
  });
});
