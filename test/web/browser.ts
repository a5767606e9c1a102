import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from "playwright-core";
import { startHarness, type Harness, type HarnessOptions } from "../gateway/harness.js";

/**
 * TEST INFRASTRUCTURE: Debian's Chromium (installed by .ci/run) through playwright-core, a page
 * per screen size (the chat opened on a gateway of its own by openChat), axe-core's accessibility
 * check, and screenshots kept for a person to look at.
 */

export const CHROMIUM = "/usr/bin/chromium";
// The flags this machine needs: no sandbox as root, and no background connections to a closed network.
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
/** Where screenshots go (look at them: the tests check behaviour, not looks). */
export const SHOTS = process.env.TOOLBRIDGE_SHOTS ?? join(import.meta.dirname, "../../.shots");

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}

export interface PageOptions {
  colorScheme?: "light" | "dark";
  /** A browser told to ignore the page's CSP (to test the page's own escaping alone). */
  bypassCSP?: boolean;
}

export async function openPage(browser: Browser, url: string, size: { width: number; height: number }, { colorScheme = "light", bypassCSP = false }: PageOptions = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: size, colorScheme, reducedMotion: "reduce", bypassCSP });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: url });
  const page = await context.newPage();
  await page.goto(`${url}/`);
  return { context, page };
}

/** A gateway (the test harness) with the web chat open in Chromium, ready (its servers shown); `close` ends both. */
export interface Chat {
  harness: Harness;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function openChat(config: HarnessOptions, size: { width: number; height: number }, options: PageOptions = {}): Promise<Chat> {
  const harness = await startHarness(config);
  const browser = await launch().catch(async (error: unknown) => {
    await harness.close();
    throw error;
  });
  const close = async () => {
    await browser.close();
    await harness.close();
  };
  try {
    const { context, page } = await openPage(browser, harness.gateway.url, size, options);
    await page.locator(".empty-servers").waitFor({ timeout: 15_000 });
    return { harness, browser, context, page, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The last answer of the conversation shown. */
export function lastAnswer(page: Page): Locator {
  return page.locator("#log .msg.assistant").last();
}

/** Denies what `asking` asks (a tool, a server's request to use the model) with a reason, typed as a person would. */
export async function denyWithReason(page: Page, asking: Locator, reason: string): Promise<void> {
  await asking.getByRole("button", { name: "Deny…" }).click();
  // The reason box takes the focus once it is drawn, in the render after the click. Waited for by the
  // page, not vitest: the bench opens pages through this module too.
  await page.waitForFunction(() => (document.activeElement?.id ?? "").startsWith("reason-"));
  await page.keyboard.type(reason);
  await page.keyboard.press("Enter");
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe-core's serious and critical findings on the page as it is now (rule id and the first element). */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol: the page's CSP (script-src 'self') does not apply to it.
  const found = (await page.evaluate(`(async () => { ${AXE}\n const r = await axe.run(document, { resultTypes: ["violations"] }); return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id + ": " + v.nodes[0].target.join(" ") + " " + v.nodes[0].failureSummary); })()`)) as string[];
  return found;
}

/** Types a message and sends it, with the keyboard alone (the message box has the focus when the page is ready). */
export async function say(page: Page, text: string): Promise<void> {
  await page.locator("#input").focus();
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
}

/**
 * What sticks out of the screen sideways: the page scrolling sideways, and each visible element
 * past an edge that no scrolling or clipping box around it keeps in (at most 10, tag.class left–right).
 */
export async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const found: string[] = [];
    if (document.documentElement.scrollWidth > width) found.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
    const inside = (rect: DOMRect) => rect.left >= -1 && rect.right <= width + 1;
    for (const element of Array.from(document.body.querySelectorAll("*"))) {
      const rect = element.getBoundingClientRect();
      // Wholly left of the screen is a skip link's way of hiding until focused.
      if (rect.width === 0 || rect.height === 0 || inside(rect) || rect.right < 0 || getComputedStyle(element).visibility === "hidden") continue;
      let kept = false;
      for (let up = element.parentElement; up && up !== document.body && !kept; up = up.parentElement) kept = getComputedStyle(up).overflowX !== "visible" && inside(up.getBoundingClientRect());
      if (!kept) found.push(`${element.tagName.toLowerCase()}${Array.from(element.classList).map((c) => `.${c}`).join("")} ${Math.round(rect.left)}–${Math.round(rect.right)}`);
    }
    return found.slice(0, 10);
  });
}

/** Whether an element, scrolled to, is wholly on the screen sideways and shown. */
export async function onScreen(page: Page, selector: ReturnType<Page["locator"]>): Promise<boolean> {
  await selector.scrollIntoViewIfNeeded();
  const box = await selector.boundingBox();
  const width = page.viewportSize()?.width ?? 0;
  return box !== null && (await selector.isVisible()) && box.x >= 0 && box.x + box.width <= width + 1 && box.y >= 0;
}
