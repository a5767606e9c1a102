import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledServer } from "../../src/config/bundled-servers.js";
import type { Harness } from "../gateway/harness.js";
import { CHROMIUM, DESKTOP, lastAnswer as lastIn, openChat, openPage, PHONE, say as sayIn, seriousViolations, shot, type Chat } from "./browser.js";

/**
 * The web chat in headless Chromium against the gateway over the scripted vLLM server (test
 * infrastructure), at desktop and phone size: the conversation itself (streaming, markdown,
 * actions, the list, errors, Stop, themes, keyboard, accessibility). Tools and MCP features are
 * in mcp-features.test.ts.
 */

const EVERYTHING = join(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");

const ANSWER = [
  "Here is a **table** and some code.",
  "",
  "| Tool | Server |",
  "| --- | --- |",
  "| get-date | time |",
  "| echo | everything |",
  "",
  "```ts",
  "const answer: number = 42; // the answer",
  "```",
].join("\n");

describe.skipIf(!existsSync(CHROMIUM))("the web chat", () => {
  let chat: Chat;
  let harness: Harness;
  let page: Page;

  beforeAll(async () => {
    chat = await openChat(
      {
        servers: { time: { ...bundledServer("time"), trust: false }, everything: { command: process.execPath, args: [EVERYTHING, "stdio"], trust: true } },
        approve: "ask",
      },
      DESKTOP,
    );
    ({ harness, page } = chat);
  }, 60_000);
  afterAll(() => chat?.close());

  const say = (text: string) => sayIn(page, text);
  const answers = () => page.locator("#log .msg.assistant");
  const lastAnswer = () => lastIn(page);

  it("opens on an empty state with the servers, their tools and example prompts, and no serious accessibility violation", async () => {
    await expect.poll(() => page.locator(".empty-servers").textContent(), { timeout: 15_000 }).toContain("get-date");
    expect(await page.locator(".empty-servers").textContent()).toContain("everything");
    expect(await page.locator(".empty .example").count()).toBeGreaterThanOrEqual(3);
    expect(await page.locator("#tool-mode").textContent()).toContain("tools: native");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("input");
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "empty-desktop-light");
    // An example fills the message box, for the person to send or change.
    await page.locator(".empty .example").first().click();
    // Preact renders on its next tick: wait for the value rather than read it within the click.
    await expect.poll(() => page.locator("#input").inputValue()).toBe("What can you do with the tools you have?");
    await page.locator("#input").fill("");
  });

  it("shows a typing indicator, then streams the answer as markdown: bordered table, highlighted code with a copy button, reasoning folded, usage", async () => {
    harness.upstream.push({ delayMs: 1500, reasoning: "The user wants a table.", text: ANSWER, chunkDelayMs: 40, usage: { prompt_tokens: 1234, completion_tokens: 56 } });
    await say("Show me a table and code");
    await page.locator(".typing").waitFor({ timeout: 10_000 });
    expect(await page.locator(".typing").getAttribute("aria-label")).toBe("The assistant is typing");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Here is a");
    // The streaming answer's first block, held: when the turn ends it stays, not drawn again (a long answer would stall the page).
    await lastAnswer().locator(".md-block").first().evaluate((block) => ((window as unknown as { held: Element }).held = block));
    await expect.poll(() => lastAnswer().locator("table td").count(), { timeout: 15_000 }).toBe(4);
    await expect.poll(() => lastAnswer().locator(".usage").count(), { timeout: 15_000 }).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { held: Element }).held.isConnected)).toBe(true);
    expect(await page.locator(".typing").count()).toBe(0);
    const cell = lastAnswer().locator("td").first();
    expect(await cell.evaluate((td) => getComputedStyle(td).borderTopStyle)).toBe("solid");
    expect(await lastAnswer().locator("code.hljs .hljs-keyword").first().textContent()).toBe("const");
    expect(await lastAnswer().locator("code.hljs .hljs-comment").textContent()).toBe("// the answer");
    await lastAnswer().locator(".copy-code").click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("const answer: number = 42; // the answer");
    expect(await lastAnswer().locator("details.reasoning").getAttribute("open")).toBeNull();
    expect(await lastAnswer().locator("details.reasoning").textContent()).toContain("The user wants a table.");
    expect(await lastAnswer().locator(".usage").textContent()).toContain("1.2k in · 56 out");
    // The model picker lists what the server lists; the gauge, how much of its context (max_model_len) the last turn used.
    expect(await page.locator("#model option").allTextContents()).toContain("other-model");
    expect(await page.locator(".gauge-text").textContent()).toBe("1.3k/32.8k");
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "answer-desktop-light");
  });

  it("copies, regenerates, edits and resends, and deletes a message", async () => {
    await lastAnswer().getByRole("button", { name: "Copy answer" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain("Here is a **table**");

    harness.upstream.push({ text: "A regenerated answer." });
    await lastAnswer().getByRole("button", { name: "Regenerate" }).click();
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("A regenerated answer.");
    expect(await page.locator("#log .turn").count()).toBe(1);
    // Sent again with the history before that turn only.
    expect(harness.upstream.chatRequests.at(-1)?.body.messages.filter((m: { role: string }) => m.role === "user")).toHaveLength(1);

    harness.upstream.push({ text: "An answer to the edited question." });
    await page.locator("#log .msg.user").last().hover();
    await page.getByRole("button", { name: "Edit and resend" }).click();
    await page.locator("#edit-input").fill("The edited question");
    await page.keyboard.press("Enter");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("An answer to the edited question.");
    expect(await page.locator("#log .msg.user").allTextContents()).toEqual(["The edited question"]);

    harness.upstream.push({ text: "Second answer." });
    await say("A second question");
    await expect.poll(() => page.locator("#log .turn").count(), { timeout: 15_000 }).toBe(2);
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Second answer.");
    await answers().first().getByRole("button", { name: "Delete this exchange" }).click();
    expect(await page.locator("#log .msg.user").allTextContents()).toEqual(["A second question"]);
  });

  it("attaches an error to its turn, with Retry", async () => {
    harness.upstream.push({ text: "This will break off", errorAfterChunks: { chunks: 2, message: "upstream fell over" } });
    await say("Break please");
    const error = page.locator("#log .turn").last().locator(".turn-error");
    await expect.poll(() => error.textContent(), { timeout: 15_000 }).toContain("upstream fell over");
    // The error stays with its turn when the next one is sent; Retry replaces that turn.
    harness.upstream.push({ text: "Fine this time." });
    await error.getByRole("button", { name: "Retry" }).click();
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Fine this time.");
    expect(await page.locator("#log .turn-error").count()).toBe(0);
    expect(await page.locator("#log .msg.user").allTextContents()).toEqual(["A second question", "Break please"]);
  });

  it("Stop (Esc) keeps what arrived, in the page and in storage", async () => {
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    harness.upstream.push({ text: long, chunkDelayMs: 50 });
    await say("Talk for a long time");
    await expect.poll(() => page.locator("#log .msg.assistant").last().textContent(), { timeout: 15_000 }).toContain("word3");
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator("#log .stopped").count(), { timeout: 15_000 }).toBe(1);
    const kept = (await lastAnswer().locator(".markdown").textContent()) ?? "";
    expect(kept).toContain("word0 word1 word2");
    expect(kept).not.toContain("word199");
    await page.reload();
    await expect.poll(() => lastAnswer().locator(".markdown").textContent(), { timeout: 15_000 }).toBe(kept);
    expect(await page.locator("#log .stopped").count()).toBe(1);
  });

  it("keeps a list of conversations to search, rename and delete", async () => {
    harness.upstream.push({ text: "About bananas." });
    await page.keyboard.press("Control+Shift+O");
    await expect.poll(() => page.locator(".empty").count()).toBe(1);
    await say("Tell me about bananas");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("About bananas.");
    const titles = () => page.locator("#conversations .conv").allTextContents();
    expect(await titles()).toEqual(["Tell me about bananas", "Show me a table and code"]);
    // Ctrl+K goes to the search; it looks in the messages too.
    await page.keyboard.press("Control+k");
    // The search is focused once the list is shown, in the task after the key.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("search");
    await page.keyboard.type("Talk for a long");
    expect(await titles()).toEqual(["Show me a table and code"]);
    await page.locator("#search").fill("");
    await page.getByRole("button", { name: "Rename Tell me about bananas" }).click();
    await page.locator("#rename-input").fill("Bananas");
    await page.keyboard.press("Enter");
    expect(await titles()).toEqual(["Bananas", "Show me a table and code"]);
    await page.getByRole("button", { name: "Delete Bananas" }).click();
    await page.getByRole("group", { name: "Delete Bananas?" }).getByRole("button", { name: "Delete" }).click();
    expect(await titles()).toEqual(["Show me a table and code"]);
    await page.reload();
    await expect.poll(titles, { timeout: 15_000 }).toEqual(["Show me a table and code"]);
  });

  it("switches between dark and light, and remembers it", async () => {
    await page.locator("#conversations .conv").first().click();
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    // Preact applies the new theme on its next render, not within the click: poll for it.
    await expect.poll(background, { timeout: 5_000 }).toBe("rgb(22, 24, 29)");
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "answer-desktop-dark");
    await page.reload();
    await expect.poll(background, { timeout: 15_000 }).toBe("rgb(22, 24, 29)");
    await page.getByRole("button", { name: "Switch to light theme" }).click();
    await expect.poll(background, { timeout: 5_000 }).toBe("rgb(255, 255, 255)");
  });

  it("exports the conversation as a toolbridge transcript", async () => {
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export" }).click();
    const file = await download;
    let text = "";
    for await (const chunk of await file.createReadStream()) text += String(chunk);
    const [header, ...lines] = text.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(header).toMatchObject({ format: "toolbridge-transcript", version: 1 });
    expect(lines.map((line) => line.role)).toContain("assistant");
  });

  it("reaches the message actions, a tool card and the conversation's rename and delete with Tab; Enter and Space work them", async () => {
    /** Tabs forward from the top of the page until `found` holds for the focused element; false after 80 steps. */
    const tabTo = async (found: string) => {
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      for (let step = 0; step < 80; step++) {
        await page.keyboard.press("Tab");
        if (await page.evaluate(`(() => { const el = document.activeElement; return !!el && (${found}); })()`)) return true;
      }
      return false;
    };
    const named = (label: string) => `el.getAttribute("aria-label") === ${JSON.stringify(label)}`;
    const actionsShown = () => page.evaluate(() => getComputedStyle(document.activeElement!.closest(".actions")!).opacity);

    await page.keyboard.press("Control+Shift+O");
    await expect.poll(() => page.locator(".empty").count()).toBe(1);
    harness.upstream.push({ toolCalls: [{ name: "echo", arguments: { message: "hello keys" } }] }, { text: "Echoed." });
    await say("Echo with the keyboard");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Echoed.");

    // The tool card's toggle: Space opens it.
    expect(await tabTo(`el.classList.contains("tool-head")`)).toBe(true);
    await page.keyboard.press("Space");
    await expect.poll(() => lastAnswer().locator(".tool-head").getAttribute("aria-expanded")).toBe("true");
    expect(await lastAnswer().locator(".tool-body").textContent()).toContain("hello keys");

    // Copy: Enter; the actions show while one of them has the focus.
    expect(await tabTo(named("Copy answer"))).toBe(true);
    expect(await actionsShown()).toBe("1");
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("Echoed.");

    // Regenerate: Space.
    harness.upstream.push({ text: "Echoed again." });
    expect(await tabTo(named("Regenerate"))).toBe(true);
    await page.keyboard.press("Space");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Echoed again.");

    // Edit and resend: Enter opens the box with the focus in it; Enter sends.
    expect(await tabTo(named("Edit and resend"))).toBe(true);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("edit-input");
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "edit-desktop");
    harness.upstream.push({ text: "Edited by keys." });
    await page.keyboard.press("Control+A");
    await page.keyboard.type("Edited with the keyboard");
    await page.keyboard.press("Enter");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Edited by keys.");

    // Delete the exchange: Enter.
    expect(await tabTo(named("Delete this exchange"))).toBe(true);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#log .turn").count()).toBe(0);

    // Rename the conversation: Enter, type, Enter; then delete it: Enter, and Enter on the confirmation's Delete (it has the focus).
    expect(await tabTo(named("Rename Echo with the keyboard"))).toBe(true);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("rename-input");
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press("Control+A");
    await page.keyboard.type("Keys");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#conversations .conv").allTextContents()).toContain("Keys");
    expect(await tabTo(named("Delete Keys"))).toBe(true);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Delete");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#conversations .conv").allTextContents()).not.toContain("Keys");
  });

  describe("on a phone", () => {
    let phone: Page;
    beforeAll(async () => {
      ({ page: phone } = await openPage(chat.browser, harness.gateway.url, PHONE, { colorScheme: "dark" }));
    });

    it("gives the conversation most of the screen; the list slides over it and closes again", async () => {
      // A browser context of its own: its own storage, so a conversation of its own.
      harness.upstream.push({ text: ANSWER });
      await phone.locator("#input").fill("A table on a phone");
      await phone.keyboard.press("Enter");
      await expect.poll(() => phone.locator("#log .msg.assistant table").count(), { timeout: 15_000 }).toBe(1);
      const header = await phone.locator(".topbar").boundingBox();
      const composer = await phone.locator(".composer-wrap").boundingBox();
      const log = await phone.locator(".main").boundingBox();
      expect(header!.height).toBeLessThan(60);
      expect(composer!.height).toBeLessThan(100);
      expect(log!.height / PHONE.height).toBeGreaterThan(0.85);
      expect(await phone.locator(".sidebar").isVisible()).toBe(false);
      expect(await seriousViolations(phone)).toEqual([]);
      await shot(phone, "answer-phone-dark");
      await phone.getByRole("button", { name: "Conversations" }).click();
      await phone.locator(".sidebar").waitFor({ state: "visible" });
      await shot(phone, "list-phone-dark");
      await phone.keyboard.press("Escape");
      await phone.locator(".sidebar").waitFor({ state: "hidden" });
      await phone.getByRole("button", { name: "New chat" }).click();
      await expect.poll(() => phone.locator(".empty .example").count(), { timeout: 15_000 }).toBeGreaterThan(0);
      expect(await seriousViolations(phone)).toEqual([]);
      await shot(phone, "empty-phone-dark");
    });
  });
});
