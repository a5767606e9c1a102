import { existsSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledServer } from "../../src/config/bundled-servers.js";
import { startHarness, type Harness } from "../gateway/harness.js";

/**
 * The web chat in headless Chromium (Debian's, installed by .ci/run), against the gateway over
 * the scripted vLLM server, with the bundled time server untrusted so that get-date is asked about.
 */

const CHROMIUM = "/usr/bin/chromium";
const EVERYTHING = join(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
// The flags this machine needs: no sandbox as root, and no background connections to a closed network.
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

describe.skipIf(!existsSync(CHROMIUM))("the web chat", () => {
  let harness: Harness;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    harness = await startHarness({
      servers: { time: { ...bundledServer("time"), trust: false }, everything: { command: process.execPath, args: [EVERYTHING, "stdio"], trust: true } },
      approve: "ask",
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${harness.gateway.url}/`);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  async function say(text: string): Promise<void> {
    // The keyboard alone: the input has the focus when the page is ready.
    await page.locator("#input").focus();
    await page.keyboard.type(text);
    await page.keyboard.press("Enter");
  }

  it("shows the servers, their tools, the models and the tool mode", async () => {
    await expect.poll(() => page.locator("#tool-mode").textContent(), { timeout: 15_000 }).toContain("tools: native");
    await page.getByRole("button", { name: "Servers" }).click();
    await expect.poll(() => page.locator("#servers").textContent(), { timeout: 15_000 }).toContain("get-date");
    expect(await page.locator("#servers .status.connected").count()).toBe(2);
    expect(await page.locator("#model option").allTextContents()).toContain("other-model");
  });

  it("streams the answer as markdown, the reasoning folded", async () => {
    harness.upstream.push({ reasoning: "The user greets me.", text: "Hello, **world**! I am streaming.", chunkDelayMs: 100 });
    await say("hi");
    // Seen while it streams, before the turn is stored.
    await expect.poll(() => page.locator("#live .msg.assistant").textContent(), { timeout: 15_000 }).toContain("Hello");
    await expect.poll(() => page.locator("#log .msg.assistant strong").textContent(), { timeout: 15_000 }).toBe("world");
    expect(await page.locator("#log .msg.user").first().textContent()).toBe("hi");
    const reasoning = page.locator("#log details.reasoning").first();
    expect(await reasoning.getAttribute("open")).toBeNull();
    expect(await reasoning.textContent()).toContain("The user greets me.");
  });

  it("asks before running a tool: deny, then allow", async () => {
    harness.upstream.push({ toolCalls: [{ name: "get-date", arguments: { format: "iso" } }] }, { text: "I was not allowed to check." });
    await say("What is the date?");
    const deny = page.getByRole("button", { name: "Deny" });
    await deny.waitFor();
    expect(await page.locator("#live details.tool .tool-name").textContent()).toBe("get-date");
    await deny.click();
    await expect.poll(() => page.locator("#log .msg.assistant").last().textContent(), { timeout: 15_000 }).toContain("I was not allowed to check.");
    expect(JSON.stringify(harness.upstream.chatRequests.at(-1)?.body.messages)).toContain("denied");

    harness.upstream.push({ toolCalls: [{ name: "get-date", arguments: { format: "iso" } }] }, { text: "Now I know the date." });
    await say("Try again, please.");
    const allow = page.getByRole("button", { name: "Allow" });
    await allow.waitFor();
    await allow.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#log .msg.assistant").last().textContent(), { timeout: 15_000 }).toContain("Now I know the date.");
    // The tool call shows its arguments and its result when opened.
    const call = page.locator("#log details.tool").last();
    await call.locator("summary").click();
    expect(await call.textContent()).toContain('"format": "iso"');
    expect(await call.textContent()).toContain(String(new Date().getFullYear()));
  });

  it("shows an image a tool returned", async () => {
    harness.upstream.push({ toolCalls: [{ name: "get-tiny-image", arguments: {} }] }, { text: "Here is the image." });
    await say("Show me a tiny image.");
    await expect.poll(() => page.locator("#log .msg.assistant").last().textContent(), { timeout: 15_000 }).toContain("Here is the image.");
    const call = page.locator("#log details.tool").last();
    await call.locator("summary").click();
    expect(await call.locator("img.content-image").getAttribute("src")).toMatch(/^data:image\/png;base64,/);
  });

  it("keeps the conversation across a reload", async () => {
    await page.reload();
    await expect.poll(() => page.locator("#conversations button").first().textContent(), { timeout: 15_000 }).toBe("hi");
    expect(await page.locator("#log .msg.user").allTextContents()).toEqual(["hi", "What is the date?", "Try again, please.", "Show me a tiny image."]);
    expect(await page.locator("#log .msg.assistant strong").first().textContent()).toBe("world");
  });

  it("exports the conversation as a toolbridge transcript", async () => {
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export" }).click();
    const file = await download;
    const stream = await file.createReadStream();
    let text = "";
    for await (const chunk of stream) text += String(chunk);
    const [header, ...lines] = text.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(header).toMatchObject({ format: "toolbridge-transcript", version: 1 });
    expect(lines.map((line) => line.role)).toContain("tool");
  });
});
