import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../gateway/harness.js";
import { CHROMIUM, DESKTOP, openChat, type Chat } from "./browser.js";

/**
 * Hostile text in every place the page shows it (the person's message and the conversation's
 * title, the model's answer and reasoning, a tool's arguments and result), in a browser told to
 * ignore the page's CSP: the page's own escaping alone must keep all of it inert. Then the CSP
 * the gateway sends, as the second wall.
 */

const EVERYTHING = join(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");

const PAYLOADS = [
  `<img src=x onerror="window.__xss=1">`,
  `<script>window.__xss=2</script>`,
  `<svg onload="window.__xss=3">`,
  `[click](javascript:window.__xss=4)`,
  `![x](javascript:window.__xss=5)`,
  `<iframe src="javascript:window.__xss=6"></iframe>`,
  `"><img src=x onerror=window.__xss=7>`,
  `'><svg/onload=window.__xss=8>`,
  `<a href="javascript:window.__xss=9">x</a>`,
  `<details open ontoggle="window.__xss=10">`,
  `<body onload="window.__xss=11">`,
  `<input autofocus onfocus="window.__xss=12">`,
  `<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=13>`,
  `[x](JaVaScRiPt:window.__xss=14)`,
  `[x](data:text/html,<script>window.__xss=15</script>)`,
  `| a | b |\n| - | - |\n| <img src=x onerror=window.__xss=16> | c |`,
  "```\"><img src=x onerror=window.__xss=17>\ncode\n```",
  `<object data="javascript:window.__xss=18"></object>`,
  `<embed src="javascript:window.__xss=19">`,
  `<form action="javascript:window.__xss=20"><button>x</button></form>`,
  `<video><source onerror="window.__xss=21"></video>`,
  `<style>@import 'javascript:window.__xss=22'</style>`,
  `<marquee onstart="window.__xss=23">m</marquee>`,
  `<x onclick="window.__xss=24">click</x>`,
  `&lt;img src=x onerror=window.__xss=25&gt;`,
  `<img src=x onerror=&#119;indow.__xss=26>`,
  `<a href="&#106;avascript:window.__xss=27">x</a>`,
  `[x](vbscript:window.__xss=28)`,
  `<meta http-equiv="refresh" content="0;url=javascript:window.__xss=29">`,
  `<base href="javascript:window.__xss=30//">`,
];
const HOSTILE = PAYLOADS.join("\n\n");

describe.skipIf(!existsSync(CHROMIUM))("the web chat with hostile text", () => {
  let chat: Chat;
  let harness: Harness;
  let page: Page;

  beforeAll(async () => {
    chat = await openChat({ servers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], trust: true } }, approve: "ask" }, DESKTOP, { bypassCSP: true });
    ({ harness, page } = chat);
  }, 60_000);
  afterAll(() => chat?.close());

  it(`keeps ${PAYLOADS.length} payloads inert in the message, title, answer, reasoning, tool arguments and result`, async () => {
    harness.upstream.push({ reasoning: HOSTILE, text: HOSTILE, toolCalls: [{ name: "echo", arguments: { message: HOSTILE } }] }, { reasoning: HOSTILE, text: HOSTILE });
    await page.locator("#input").fill(HOSTILE);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#log .msg.assistant .markdown").count(), { timeout: 20_000 }).toBe(2);
    await expect.poll(() => page.locator("#log .msg.assistant .actions").count(), { timeout: 20_000 }).toBe(1);
    // Everything opened: reasoning, the tool card (arguments and result).
    for (const details of await page.locator("#log details").all()) await details.evaluate((element) => ((element as HTMLDetailsElement).open = true));
    await page.locator("#log .tool-head").first().click();
    expect(await page.locator("#log .tool-body").textContent()).toContain("window.__xss=30");
    await page.mouse.move(400, 300);
    await page.waitForTimeout(500);

    expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
    const found = await page.evaluate(() => {
      const log = document.querySelector("#log") as HTMLElement;
      const all = [...Array.from(log.querySelectorAll("*")), ...Array.from(document.querySelectorAll("#conversations *"))];
      return {
        handlers: all.filter((el) => Array.from(el.attributes).some((attribute) => attribute.name.startsWith("on"))).map((el) => el.outerHTML.slice(0, 80)),
        elements: all.filter((el) => ["SCRIPT", "IFRAME", "OBJECT", "EMBED", "FORM", "META", "BASE", "STYLE", "VIDEO", "MARQUEE", "X", "INPUT", "MATH"].includes(el.tagName) && !el.closest(".edit-form")).map((el) => el.tagName),
        svgs: all.filter((el) => el.tagName === "svg" && !el.classList.contains("icon")).length,
        links: Array.from(log.querySelectorAll("a[href]")).map((a) => a.getAttribute("href")).filter((href) => !/^(https?:|mailto:)/i.test(href ?? "")),
        images: Array.from(log.querySelectorAll("img")).map((img) => img.getAttribute("src")).filter((src) => !(src ?? "").startsWith("data:image/")),
      };
    });
    expect(found).toEqual({ handlers: [], elements: [], svgs: 0, links: [], images: [] });
    // Shown as text: the person sees what was sent.
    expect(await page.locator("#log .msg.user").textContent()).toContain(`<script>window.__xss=2</script>`);
    expect(await page.locator("#conversations .conv").textContent()).toBe(`<img src=x onerror="window.__xss=1">`);
  });

  it("sends the page with a CSP that runs only its own script, and the app frames with one of their own", async () => {
    const response = await fetch(`${harness.gateway.url}/`);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
