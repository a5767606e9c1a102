import { existsSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../gateway/harness.js";
import { CHROMIUM, denyWithReason, DESKTOP, lastAnswer as lastIn, openChat, PHONE, say as sayIn, seriousViolations, shot, type Chat } from "./browser.js";

/**
 * Servers' questions in the web chat, in headless Chromium against server-everything (a real
 * peer): its elicitation form (fields, validation, accept and decline), a page it asks to open
 * (shown exactly, opened only on a click, a look-alike host in punycode, a `javascript:` URL
 * refused), and its sampling request (what it asks, max_tokens capped, allow / deny).
 */

const EVERYTHING = join(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const ASKING_TOOLS = ["trigger-elicitation-request", "trigger-url-elicitation", "trigger-sampling-request"];

describe.skipIf(!existsSync(CHROMIUM))("servers' questions in the web chat", () => {
  let chat: Chat;
  let harness: Harness;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    // Untrusted: its sampling is asked about; the three tools that ask run unasked, so the questions are the servers'.
    chat = await openChat({ servers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], autoApprove: ASKING_TOOLS } }, approve: "ask" }, DESKTOP);
    ({ harness, context, page } = chat);
  }, 60_000);
  afterAll(() => chat?.close());

  const say = (text: string) => sayIn(page, text);
  const lastAnswer = () => lastIn(page);
  /** What the tool answered, as the model was sent it (the last tool message of the last request). */
  const toolResult = () => {
    const messages = (harness.upstream.chatRequests.at(-1)?.body.messages ?? []) as { role: string; content: unknown }[];
    return JSON.stringify(messages.filter((message) => message.role === "tool").at(-1)?.content);
  };

  it("asks a server's form: required and range checks in the page, the answers reach the server", { timeout: 60_000 }, async () => {
    harness.upstream.push({ toolCalls: [{ name: "trigger-elicitation-request", arguments: {} }] }, { text: "Thanks for the details." });
    await say("Ask me for my details.");
    const form = page.getByRole("form", { name: "Question from everything" });
    await form.waitFor({ timeout: 15_000 });
    expect(await form.textContent()).toContain("Please provide inputs for the following fields:");
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "elicitation-form-desktop");
    // Accept with the required name empty: it is flagged and takes the focus.
    await form.getByRole("button", { name: "Accept" }).click();
    await expect.poll(() => form.locator(".field-error").first().textContent()).toBe("an answer is needed");
    expect(await page.evaluate(() => document.activeElement?.id)).toMatch(/-name$/);
    await page.keyboard.type("Ada Lovelace");
    await form.getByLabel("Number in range 1-1000", { exact: true }).fill("5000");
    await form.getByRole("button", { name: "Accept" }).click();
    await expect.poll(() => form.locator(".field-error").first().textContent()).toBe("at most 1000");
    await shot(page, "elicitation-form-invalid-desktop");
    await form.getByLabel("Number in range 1-1000", { exact: true }).fill("42");
    await form.getByLabel("Boolean", { exact: true }).check();
    await form.getByLabel("Titled Single Select Enum", { exact: true }).selectOption({ label: "Wonder Woman" });
    await form.getByRole("button", { name: "Accept" }).click();
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Thanks for the details.");
    const result = toolResult();
    expect(result).toContain("Ada Lovelace");
    expect(result).toContain("hero-3");
    expect(result).toContain("42");
    expect(await page.getByRole("form", { name: "Question from everything" }).count()).toBe(0);
  });

  it("declines a form: the server hears decline", async () => {
    harness.upstream.push({ toolCalls: [{ name: "trigger-elicitation-request", arguments: {} }] }, { text: "Fine, no details." });
    await say("Ask again.");
    const form = page.getByRole("form", { name: "Question from everything" });
    await form.waitFor({ timeout: 15_000 });
    await form.getByRole("button", { name: "Decline" }).click();
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Fine, no details.");
    expect(toolResult()).toContain("declined");
  });

  it("shows a page a server asks to open exactly as it opens, and opens it only on a click (phone size)", async () => {
    await page.setViewportSize(PHONE);
    const target = `${harness.gateway.url}/consent-page?step=1`;
    harness.upstream.push({ toolCalls: [{ name: "trigger-url-elicitation", arguments: { url: target } }] }, { text: "Consent given." });
    await say("Get my consent.");
    const consent = page.getByRole("group", { name: "Page to open for everything" });
    await consent.waitFor({ timeout: 15_000 });
    expect(await consent.locator(".link-url").textContent()).toBe(target);
    expect(await consent.locator(".url-host").textContent()).toBe(new URL(target).host);
    expect(context.pages()).toHaveLength(1);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "url-consent-phone");
    const opened = context.waitForEvent("page");
    await consent.getByRole("button", { name: "Open page" }).click();
    expect((await opened).url()).toBe(target);
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Consent given.");
    expect(toolResult()).toContain("accept");
    for (const extra of context.pages().slice(1)) await extra.close();
    await page.setViewportSize(DESKTOP);
  });

  it("shows a look-alike host in punycode and opens nothing when declined; refuses a javascript: URL with one line", { timeout: 60_000 }, async () => {
    harness.upstream.push({ toolCalls: [{ name: "trigger-url-elicitation", arguments: { url: "https://ex\u0430mple.com/login" } }] }, { text: "Not opened." });
    await say("Open the bank.");
    const consent = page.getByRole("group", { name: "Page to open for everything" });
    await consent.waitFor({ timeout: 15_000 });
    expect(await consent.locator(".link-url").textContent()).toBe("https://xn--exmple-4nf.com/login");
    await consent.getByRole("button", { name: "Don't open" }).click();
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Not opened.");
    expect(toolResult()).toContain("decline");
    expect(context.pages()).toHaveLength(1);

    harness.upstream.push({ toolCalls: [{ name: "trigger-url-elicitation", arguments: { url: "javascript:alert(1)" } }] }, { text: "Refused." });
    await say("Run the script.");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Refused.");
    expect(await lastAnswer().locator(".turn-notice").textContent()).toBe('server "everything" asked you to open a page; declined: only https URLs (or http on this machine) are opened, not javascript:');
    expect(context.pages()).toHaveLength(1);
  });

  it("asks before a server uses the model: what it asks, max_tokens capped; allow once, deny with a reason, allow for the session", { timeout: 60_000 }, async () => {
    harness.upstream.push({ toolCalls: [{ name: "trigger-sampling-request", arguments: { prompt: "Write a haiku about tides", maxTokens: 10_000_000 } }] }, { text: "Low tide, quiet sand." }, { text: "The server got its haiku." });
    await say("Have the server ask the model.");
    const request = page.getByRole("group", { name: "Sampling request from everything" });
    await request.waitFor({ timeout: 15_000 });
    const shown = await request.textContent();
    expect(shown).toContain("Write a haiku about tides");
    // Capped as the terminal caps it: at most the server's per-minute token budget (50 000 by default).
    expect(shown).toContain("up to 50000 tokens");
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "sampling-request-desktop");
    await request.getByRole("button", { name: "Allow once" }).click();
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("The server got its haiku.");
    const sampled = harness.upstream.chatRequests.at(-2)?.body as { max_tokens?: number; max_completion_tokens?: number };
    expect(sampled.max_tokens ?? sampled.max_completion_tokens).toBe(50_000);
    expect(toolResult()).toContain("Low tide, quiet sand.");

    harness.upstream.push({ toolCalls: [{ name: "trigger-sampling-request", arguments: { prompt: "Another", maxTokens: 20 } }] }, { text: "Denied, then." });
    await say("Again, please.");
    await request.waitFor({ timeout: 15_000 });
    await denyWithReason(page, request, "Not today");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Denied, then.");
    expect(toolResult()).toContain("User rejected sampling request: Not today");

    harness.upstream.push({ toolCalls: [{ name: "trigger-sampling-request", arguments: { prompt: "Third", maxTokens: 20 } }] }, { text: "Sampled." }, { text: "Allowed for the session." });
    await say("Once more.");
    await request.waitFor({ timeout: 15_000 });
    await request.getByRole("button", { name: "Allow for this session" }).click();
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Allowed for the session.");

    harness.upstream.push({ toolCalls: [{ name: "trigger-sampling-request", arguments: { prompt: "Fourth", maxTokens: 20 } }] }, { text: "Sampled again." }, { text: "Not asked this time." });
    await say("And once more.");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Not asked this time.");
    expect(toolResult()).toContain("Sampled again.");
  });
});
