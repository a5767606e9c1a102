import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledServer } from "../../src/config/bundled-servers.js";
import type { Harness } from "../gateway/harness.js";
import { CHROMIUM, lastAnswer as lastIn, onScreen, openChat, overflowing, PHONE, say as sayIn, seriousViolations, shot, type Chat } from "./browser.js";

/**
 * The web chat on a phone (390×844) in headless Chromium: each part that asks something of the
 * person or shows what a server did — tool cards, the `/` and `@` menus, the servers panel, a
 * server's form and its request to use the model, an error with Retry, Stop, edit and rename —
 * fits the screen (nothing sticks out sideways) with its controls on it. Screenshots go to .shots.
 */

const EVERYTHING = join(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const LONG_RESOURCE = join(import.meta.dirname, "../fixtures/servers/long-resource.mjs");
const RUN_UNASKED = ["trigger-elicitation-request", "trigger-sampling-request", "get-tiny-image", "get-structured-content"];

describe.skipIf(!existsSync(CHROMIUM))("the web chat on a phone", () => {
  let chat: Chat;
  let harness: Harness;
  let page: Page;

  beforeAll(async () => {
    // everything is not trusted: its request to use the model is asked about; the tools that ask run unasked.
    chat = await openChat(
      {
        servers: {
          time: { ...bundledServer("time"), trust: false },
          everything: { command: process.execPath, args: [EVERYTHING, "stdio"], autoApprove: RUN_UNASKED, logLevel: "info" },
          notes: { command: process.execPath, args: [LONG_RESOURCE] },
        },
        approve: "ask",
      },
      PHONE,
    );
    ({ harness, page } = chat);
  }, 60_000);
  afterAll(() => chat?.close());

  const say = (text: string) => sayIn(page, text);
  const lastAnswer = () => lastIn(page);
  const fits = async (name: string) => {
    expect(await overflowing(page)).toEqual([]);
    await shot(page, `${name}-phone`);
  };
  /** Types what opens a menu (`/`, `@`); the menu is shown, with options, and fits the screen. */
  const openMenu = async (typed: string, name: string, shotName: string) => {
    await page.locator("#input").focus();
    await page.keyboard.type(typed);
    const menu = page.getByRole("listbox", { name });
    await expect.poll(() => menu.locator("[role=option]").count(), { timeout: 15_000 }).toBeGreaterThan(2);
    expect(await seriousViolations(page)).toEqual([]);
    await fits(shotName);
    return menu;
  };

  it("shows tool cards, closed and opened, within the screen", async () => {
    harness.upstream.push({ toolCalls: [{ name: "get-structured-content", arguments: { location: "New York" } }, { name: "get-tiny-image", arguments: {} }] }, { text: "The weather, and an image." });
    await say("Weather in New York, and an image");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("The weather, and an image.");
    const cards = lastAnswer().locator(".tool-card");
    expect(await cards.count()).toBe(2);
    // The header's state and time each stay on one line (the server's name shortens instead).
    for (const part of [".tool-state", ".tool-time"]) expect((await cards.first().locator(part).boundingBox())!.height).toBeLessThan(24);
    await fits("tool-cards");
    await cards.first().locator(".tool-head").click();
    await expect.poll(() => cards.first().locator(".tool-body").textContent()).toContain("temperature");
    expect(await onScreen(page, cards.first().locator(".tool-time"))).toBe(true);
    await fits("tool-card-open");
  });

  it("shows the / menu and a prompt's form within the screen", async () => {
    const menu = await openMenu("/", "Prompts", "prompt-menu");
    await page.keyboard.type("args");
    await expect.poll(() => menu.textContent(), { timeout: 15_000 }).toContain("/args-prompt");
    await page.keyboard.press("Enter");
    const form = page.getByRole("form", { name: "Prompt args-prompt" });
    await form.waitFor();
    expect(await onScreen(page, form.getByRole("button", { name: "Cancel" }))).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await fits("prompt-form");
    await form.getByRole("button", { name: "Cancel" }).click();
    await form.waitFor({ state: "detached" });
  });

  it("shows the @ menu, and the resource as a chip in the message, within the screen", async () => {
    const menu = await openMenu("Summarize @", "Resources", "resource-menu");
    await page.keyboard.type("note");
    await expect.poll(() => menu.locator("[role=option]").count(), { timeout: 15_000 }).toBe(1);
    await page.keyboard.press("Enter");
    // notes is not trusted: the person is asked before its resource is read, on a phone as on a desktop.
    const asked = page.getByRole("group", { name: "Approve reading" });
    expect(await onScreen(page, asked.getByRole("button", { name: "Allow once" }))).toBe(true);
    await fits("resource-approval");
    await asked.getByRole("button", { name: "Allow once" }).click();
    await expect.poll(() => page.locator(".attachments").textContent(), { timeout: 15_000 }).toContain("@note");
    harness.upstream.push({ text: "A short summary." });
    await page.keyboard.type("it");
    await page.keyboard.press("Enter");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("A short summary.");
    const chip = page.locator("#log .msg.user").last().locator("details.attachment");
    expect(await onScreen(page, chip.locator(".attachment-size"))).toBe(true);
    await chip.locator("summary").click();
    await fits("resource-chip");
  });

  it("shows the servers panel within the screen, its close button on it", async () => {
    await page.getByRole("button", { name: /^Servers/ }).click();
    const panel = page.getByRole("complementary", { name: "Servers" });
    await panel.waitFor();
    await panel.locator(".server").filter({ hasText: "mcp-servers/everything" }).locator(".server-log summary").click();
    expect(await onScreen(page, panel.getByRole("button", { name: "Close servers" }))).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await fits("servers");
    await panel.getByRole("button", { name: "Close servers" }).click();
    await panel.waitFor({ state: "detached" });
  });

  it("shows a server's form within the screen, its buttons on it", async () => {
    harness.upstream.push({ toolCalls: [{ name: "trigger-elicitation-request", arguments: {} }] }, { text: "No details, fine." });
    await say("Ask me for my details.");
    const form = page.getByRole("form", { name: "Question from everything" });
    await form.waitFor({ timeout: 15_000 });
    for (const name of ["Accept", "Decline"]) expect(await onScreen(page, form.getByRole("button", { name }))).toBe(true);
    await fits("elicitation-form");
    await form.getByRole("button", { name: "Decline" }).click();
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("No details, fine.");
  });

  it("shows a server's request to use the model within the screen, its answers on it", async () => {
    harness.upstream.push({ toolCalls: [{ name: "trigger-sampling-request", arguments: { prompt: `Write a haiku about ${"very ".repeat(30)}long tides`, maxTokens: 100 } }] }, { text: "Not sampled." });
    await say("Sample something.");
    const request = page.getByRole("group", { name: "Sampling request from everything" });
    await request.waitFor({ timeout: 15_000 });
    for (const name of ["Allow once", "Allow for this session", "Deny…"]) expect(await onScreen(page, request.getByRole("button", { name }))).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await fits("sampling");
    await request.getByRole("button", { name: "Deny…" }).click();
    await request.getByLabel(/^Why not/).fill("Not on a phone");
    await fits("sampling-deny");
    await request.getByLabel(/^Why not/).press("Enter");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Not sampled.");
  });

  it("shows an error with Retry within the screen", async () => {
    harness.upstream.push({ text: "This will break off", errorAfterChunks: { chunks: 2, message: "upstream fell over" } });
    await say("Break please");
    const error = page.locator("#log .turn").last().locator(".turn-error");
    await expect.poll(() => error.textContent(), { timeout: 15_000 }).toContain("upstream fell over");
    expect(await onScreen(page, error.getByRole("button", { name: "Retry" }))).toBe(true);
    await fits("error");
    harness.upstream.push({ text: "Fine this time." });
    await error.getByRole("button", { name: "Retry" }).click();
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Fine this time.");
  });

  it("stops with the Stop button, keeping what arrived, within the screen", async () => {
    harness.upstream.push({ text: Array.from({ length: 300 }, (_, i) => `word${i}`).join(" "), chunkDelayMs: 50 });
    await say("Talk for a long time");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("word3");
    const stop = page.getByRole("button", { name: "Stop (Esc)" });
    expect(await onScreen(page, stop)).toBe(true);
    await fits("streaming");
    await stop.click();
    await expect.poll(() => page.locator("#log .stopped").count(), { timeout: 15_000 }).toBe(1);
    expect(await lastAnswer().locator(".markdown").textContent()).not.toContain("word299");
    await fits("stopped");
  });

  it("edits and resends a message within the screen", async () => {
    const edit = page.locator("#log .msg.user").last().getByRole("button", { name: "Edit and resend" });
    expect(await onScreen(page, edit)).toBe(true);
    await edit.click();
    const form = page.locator(".edit-form");
    for (const name of ["Send", "Cancel"]) expect(await onScreen(page, form.getByRole("button", { name }))).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await fits("edit");
    harness.upstream.push({ text: "A short one this time." });
    await page.locator("#edit-input").fill("Talk briefly");
    await page.keyboard.press("Enter");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("A short one this time.");
    expect(await page.locator("#log .msg.user").last().textContent()).toBe("Talk briefly");
  });

  it("renames a conversation in the list within the screen", async () => {
    await page.getByRole("button", { name: "Conversations" }).click();
    await page.locator(".sidebar").waitFor({ state: "visible" });
    const rename = page.getByRole("button", { name: /^Rename / }).first();
    expect(await onScreen(page, rename)).toBe(true);
    await rename.click();
    await page.locator("#rename-input").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await fits("rename");
    await page.locator("#rename-input").fill("Phone chat");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#conversations .conv").allTextContents()).toEqual(["Phone chat"]);
    await fits("list");
  });
});
