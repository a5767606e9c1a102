import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledServer } from "../../src/config/bundled-servers.js";
import type { Harness } from "../gateway/harness.js";
import { CHROMIUM, denyWithReason, DESKTOP, lastAnswer as lastIn, openChat, openPage, PHONE, say as sayIn, seriousViolations, shot, type Chat } from "./browser.js";

/**
 * The web chat's tools and MCP features in headless Chromium: tool cards, the three-way
 * approval, `/` prompts with completion (server-everything), `@` resources, the servers panel,
 * and an MCP App (test/fixtures/servers/app-server.mjs) in its sandboxed frame.
 */

const EVERYTHING = join(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const APP_SERVER = join(import.meta.dirname, "../fixtures/servers/app-server.mjs");
const LONG_RESOURCE = join(import.meta.dirname, "../fixtures/servers/long-resource.mjs");

describe.skipIf(!existsSync(CHROMIUM))("the web chat's tools and MCP features", () => {
  let chat: Chat;
  let harness: Harness;
  let page: Page;
  const root = mkdtempSync(join(tmpdir(), "toolbridge-root-"));

  beforeAll(async () => {
    chat = await openChat(
      {
        roots: [root],
        servers: {
          time: { ...bundledServer("time"), trust: false },
          // Its log lines at info and above, as a person who wants to see them configures it.
          everything: { command: process.execPath, args: [EVERYTHING, "stdio"], trust: true, logLevel: "info" },
          counter: { command: process.execPath, args: [APP_SERVER], trust: false },
          notes: { command: process.execPath, args: [LONG_RESOURCE], trust: false },
        },
        approve: "ask",
      },
      DESKTOP,
    );
    ({ harness, page } = chat);
  }, 60_000);
  afterAll(async () => {
    await chat?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const say = (text: string) => sayIn(page, text);
  const lastAnswer = () => lastIn(page);
  const lastRequest = () => JSON.stringify(harness.upstream.chatRequests.at(-1)?.body.messages);

  it("asks with the whole arguments, long strings whole, Allow waiting until all were on screen; denies with a reason the model is told", async () => {
    const letter = `Dear reader,\n${"a long line of text ".repeat(40)}\n${Array.from({ length: 58 }, (_, i) => `line ${i + 3}`).join("\n")}\nThe end.`;
    harness.upstream.push({ toolCalls: [{ name: "get-date", arguments: { format: "iso", note: letter } }] }, { text: "I was not allowed to check." });
    await say("What is the date?");
    const approval = page.getByRole("group", { name: "Approve get-date" });
    await approval.waitFor({ timeout: 15_000 });
    expect(await approval.textContent()).toContain("from time");
    expect(await approval.locator("dd pre").nth(1).textContent()).toBe(letter);
    // 61 lines, taller than the screen: Allow waits until every line has been on screen (Deny does not).
    const allow = approval.getByRole("button", { name: "Allow once" });
    expect(await allow.isDisabled()).toBe(true);
    expect(await approval.locator(".approval-unread").textContent()).toContain("Scroll to the end of the arguments before allowing");
    expect(await approval.getByRole("button", { name: "Deny…" }).isDisabled()).toBe(false);
    for (const block of ["start", "center", "end"] as const) await approval.locator(".approval-args").evaluate((element, where) => element.scrollIntoView({ block: where }), block);
    await expect.poll(() => allow.isEnabled(), { timeout: 15_000 }).toBe(true);
    // Then the first answer has the focus: the keyboard alone answers.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Allow once");
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "approval-desktop");
    await denyWithReason(page, approval, "Not on a Sunday");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("I was not allowed to check.");
    expect(lastRequest()).toContain("Not on a Sunday");
    expect(await lastAnswer().locator(".tool-state").textContent()).toBe("denied");
  });

  it("allows once, then for this session: the same tool is not asked about again", async () => {
    harness.upstream.push({ toolCalls: [{ name: "get-date", arguments: { format: "iso" } }] }, { text: "Now I know the date." });
    await say("Try again, please.");
    await page.getByRole("button", { name: "Allow once" }).click();
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Now I know the date.");

    harness.upstream.push({ toolCalls: [{ name: "get-date", arguments: {} }] }, { text: "Date again." });
    await say("And again.");
    await page.getByRole("button", { name: "Allow for this session" }).click();
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Date again.");

    harness.upstream.push({ toolCalls: [{ name: "get-date", arguments: {} }] }, { text: "Unasked this time." });
    await say("Once more.");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Unasked this time.");
    expect(await lastAnswer().locator(".tool-state").textContent()).toBe("done");
  });

  it("shows a tool as a card: duration, then arguments and result when opened, images shown", async () => {
    const card = lastAnswer().locator(".tool-card").last();
    expect(await card.locator(".tool-time").textContent()).toMatch(/^\d+ ms$|^\d+\.\d s$/);
    await card.locator(".tool-head").click();
    expect(await card.locator(".tool-head").getAttribute("aria-expanded")).toBe("true");
    expect(await card.locator(".tool-body").textContent()).toContain(String(new Date().getFullYear()));

    harness.upstream.push({ toolCalls: [{ name: "get-tiny-image", arguments: {} }] }, { text: "Here is the image." });
    await say("Show me a tiny image.");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Here is the image.");
    const image = lastAnswer().locator(".tool-card").last();
    // Shown on the closed card, and inside the result once opened.
    expect(await image.locator(".tool-images img.content-image").count()).toBe(1);
    await image.locator(".tool-head").click();
    expect(await image.locator("img.content-image").getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    expect(await image.locator("img.content-image").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  });

  it("shows a running tool's progress as it comes", async () => {
    harness.upstream.push({ toolCalls: [{ name: "slow-steps", arguments: {} }] }, { text: "Steps done." });
    await say("Take the steps.");
    await page.getByRole("button", { name: "Allow once" }).click();
    await expect.poll(() => page.locator(".tool-progress").textContent({ timeout: 1000 }).catch(() => ""), { timeout: 15_000 }).toMatch(/step [12]/);
    expect(await page.locator(".tool-progress progress").getAttribute("max")).toBe("3");
    await shot(page, "progress-desktop");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Steps done.");
  });

  it("offers the servers' prompts after /, completes their arguments, and puts the prompt in the box", async () => {
    await page.locator("#input").focus();
    await page.keyboard.type("/compl");
    const menu = page.getByRole("listbox", { name: "Prompts" });
    await expect.poll(() => menu.textContent(), { timeout: 15_000 }).toContain("/completable-prompt");
    await page.keyboard.press("Enter");
    await page.getByRole("form", { name: "Prompt completable-prompt" }).waitFor();
    await page.keyboard.type("Eng");
    await expect.poll(() => page.locator("#arg-department-options option").evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)), { timeout: 15_000 }).toEqual(["Engineering"]);
    await page.locator("#arg-department").fill("Engineering");
    await page.locator("#arg-name").focus();
    await expect.poll(() => page.locator("#arg-name-options option").evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)), { timeout: 15_000 }).toEqual(["Alice", "Bob", "Charlie"]);
    await page.keyboard.type("Bob");
    await shot(page, "prompt-form-desktop");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#input").inputValue(), { timeout: 15_000 }).toBe("Please promote Bob to the head of the Engineering team.");
    await page.locator("#input").fill("");
  });

  it("attaches a resource after @ as a chip in the message: name, address and size, its text when opened; the model gets the text", async () => {
    await page.locator("#input").focus();
    await page.keyboard.type("Summarize @note");
    const menu = page.getByRole("listbox", { name: "Resources" });
    await expect.poll(() => menu.locator("[role=option]").allTextContents(), { timeout: 15_000 }).toEqual(["notenotes · long://note"]);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "resource-menu-desktop");
    await page.keyboard.press("Enter");
    // notes is not trusted: the person is asked before its resource is read, as /mcp would refuse it unasked.
    const asked = page.getByRole("group", { name: "Approve reading" });
    expect(await asked.locator(".approval-title").textContent()).toBe("Read long://note from notes?");
    await shot(page, "resource-approval-desktop");
    await asked.getByRole("button", { name: "Allow once" }).click();
    await expect.poll(() => page.locator(".attachments").textContent(), { timeout: 15_000 }).toContain("@note 12 B");
    harness.upstream.push({ text: "A summary." });
    await page.keyboard.type("it");
    await page.keyboard.press("Enter");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("A summary.");
    expect(lastRequest()).toContain("Summarize it");
    expect(lastRequest()).toContain("a short note");
    // The bubble: what was typed, and a chip for the resource; its text only when the chip is opened.
    const mine = page.locator("#log .msg.user").last();
    expect(await mine.locator(".plain").textContent()).toBe("Summarize it");
    const chip = mine.locator("details.attachment");
    expect(await chip.locator("summary").textContent()).toBe("@notelong://note12 B");
    expect(await chip.locator(".attachment-text").isVisible()).toBe(false);
    await chip.locator("summary").click();
    expect(await chip.locator(".attachment-text").textContent()).toBe("a short note");
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "resource-chip-desktop");
  });

  it("attaches at most 100 kB of resources to a message: a longer one is cut, one more is refused, each said in one line", async () => {
    await page.locator("#input").focus();
    await page.keyboard.type("Read @report");
    await expect.poll(() => page.getByRole("listbox", { name: "Resources" }).locator("[role=option]").count(), { timeout: 15_000 }).toBe(1);
    await page.keyboard.press("Enter");
    await page.getByRole("group", { name: "Approve reading" }).getByRole("button", { name: "Allow once" }).click();
    const notice = page.locator(".notice");
    await expect.poll(() => notice.textContent(), { timeout: 15_000 }).toContain("@report (long://report) is 150.0 kB: only its first 100.0 kB were attached (a message carries at most 100.0 kB of resources).");
    expect(await page.locator(".attachments").textContent()).toContain("@report 100.0 kB");
    await page.locator("#input").focus();
    await page.keyboard.type(" @note");
    await expect.poll(() => page.getByRole("listbox", { name: "Resources" }).locator("[role=option]").count(), { timeout: 15_000 }).toBe(1);
    await page.keyboard.press("Enter");
    await page.getByRole("group", { name: "Approve reading" }).getByRole("button", { name: "Allow once" }).click();
    await expect.poll(() => notice.textContent(), { timeout: 15_000 }).toContain("@note (long://note) was not attached: this message already carries 100.0 kB of resources");
    expect(await page.locator(".attachments li").count()).toBe(1);
    await notice.getByRole("button", { name: "Dismiss" }).click();
    harness.upstream.push({ text: "Read the first part." });
    await page.locator("#input").focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Read the first part.");
    const sent = lastRequest();
    expect(sent).toContain("Resource report (long://report), its first 100.0 kB of 150.0 kB:");
    expect(sent).toContain("line 07000 ok");
    expect(sent).not.toContain("line 07200 ok");
    expect(await page.locator("#log .msg.user").last().locator(".attachment-size").textContent()).toBe("100.0 kB of 150.0 kB");
    // Regenerate sends the resource again, as it was attached.
    harness.upstream.push({ text: "Read it again." });
    await lastAnswer().getByRole("button", { name: "Regenerate" }).click();
    await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toContain("Read it again.");
    expect(lastRequest()).toContain("Resource report (long://report), its first 100.0 kB of 150.0 kB:");
  });

  it("shows the servers panel: status, tools, the roots the servers are given, and what they logged", async () => {
    await page.getByRole("button", { name: /^Servers/ }).click();
    const panel = page.getByRole("complementary", { name: "Servers" });
    await panel.waitFor();
    expect(await panel.locator(".status.connected").count()).toBe(4);
    expect(await panel.textContent()).toContain("show-counter");
    expect(await panel.locator(".roots code").allTextContents()).toEqual([pathToFileURL(root).href]);
    // server-everything logs (notifications/message) when it is given its roots, as it connects.
    const everything = panel.locator(".server").filter({ hasText: "mcp-servers/everything" });
    await everything.locator(".server-log summary").click();
    expect(await everything.locator(".server-log pre").textContent()).toContain("info everything-server: Roots updated: 1 root(s) received from client");
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "servers-desktop");
    await page.keyboard.press("Escape");
    expect(await panel.count()).toBe(0);
  });

  it("shows a tool's MCP App in a sandboxed frame: input, result, size, its own calls approved, links shown before they open", async () => {
    harness.upstream.push({ toolCalls: [{ name: "show-counter", arguments: { start: 41 } }] }, { text: "There is your counter." });
    await say("Show me a counter.");
    await page.getByRole("button", { name: "Allow once" }).click();
    const iframe = page.locator(".app-frame iframe");
    await iframe.waitFor({ timeout: 15_000 });
    expect(await iframe.getAttribute("sandbox")).toBe("allow-scripts allow-forms");
    const app = page.frameLocator(".app-frame iframe");
    await expect.poll(() => app.locator("#count").textContent(), { timeout: 15_000 }).toBe("41");
    expect(await app.locator("#input").textContent()).toBe('input {"start":41}');
    expect(await app.locator("#host").textContent()).toBe("host toolbridge light");
    await expect.poll(() => iframe.getAttribute("height"), { timeout: 15_000 }).toBe("222");
    // Its sandbox: not this page, not its storage, not the network.
    await expect.poll(() => app.locator("#probes").textContent(), { timeout: 15_000 }).toBe("parent blocked, storage blocked, fetch blocked");
    // The app's own tool call goes through the approval policy: counter is not trusted, so the person is asked.
    await app.locator("#add").click();
    const ask = page.locator(".app-frame").getByRole("group", { name: "Approve add-one" });
    await ask.waitFor({ timeout: 15_000 });
    expect(await ask.textContent()).toContain("41");
    // Brought on screen above the message box, though its turn has ended.
    await expect.poll(() => ask.getByRole("button", { name: "Allow once" }).evaluate((button) => button.getBoundingClientRect().bottom <= document.querySelector(".composer-wrap")!.getBoundingClientRect().top)).toBe(true);
    expect(await ask.getByRole("button", { name: "Allow for this session" }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, "app-approval-desktop");
    await ask.getByRole("button", { name: "Allow once" }).click();
    await expect.poll(() => app.locator("#added").textContent(), { timeout: 15_000 }).toBe("added 42");
    await app.locator("#add").click();
    await page.locator(".app-frame").getByRole("button", { name: "Deny…" }).click();
    // The person's reason reaches the app with the refusal.
    await page.locator(".app-frame").getByLabel(/^Why not/).fill("Not past 42");
    await page.locator(".app-frame").getByLabel(/^Why not/).press("Enter");
    await expect.poll(() => app.locator("#added").textContent(), { timeout: 15_000 }).toBe("refused: The person denied this tool call: Not past 42");
    // A link: the exact address is shown; nothing opens unless the person clicks Open.
    await app.locator("#link").click();
    const consent = page.getByRole("group", { name: "Open a link" });
    await consent.waitFor();
    expect(await consent.locator(".link-url").textContent()).toBe("https://example.com/docs?a=1");
    await consent.getByRole("button", { name: "Don't open" }).click();
    await expect.poll(() => app.locator("#linked").textContent(), { timeout: 15_000 }).toBe("link refused");
    // Checked as a server's links are: a look-alike host shown in punycode, control characters refused.
    await app.locator("#link-lookalike").click();
    await expect.poll(() => consent.locator(".link-url").textContent()).toBe("https://xn--exmple-4nf.com/login");
    expect(await consent.locator(".url-host").textContent()).toBe("xn--exmple-4nf.com");
    await consent.getByRole("button", { name: "Don't open" }).click();
    await app.locator("#link-control").click();
    await expect.poll(() => consent.locator(".field-error").textContent()).toBe("Not opened: the URL contains control characters.");
    expect(await consent.getByRole("button", { name: "Open", exact: true }).count()).toBe(0);
    await consent.getByRole("button", { name: "Don't open" }).click();
    await expect.poll(() => consent.count()).toBe(0);
    // The theme, told again when it switches.
    expect(await app.locator("#theme").textContent()).toBe("theme light");
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    await expect.poll(() => app.locator("#theme").textContent(), { timeout: 15_000 }).toBe("theme changed to dark");
    await shot(page, "app-desktop-dark");
    await page.getByRole("button", { name: "Switch to light theme" }).click();
    await expect.poll(() => app.locator("#theme").textContent(), { timeout: 15_000 }).toBe("theme changed to light");
    await shot(page, "app-desktop");
  });

  it("serves the app under the CSP its resource declares, with a sandbox of its own", async () => {
    const src = (await page.locator(".app-frame iframe").getAttribute("src")) ?? "";
    const response = await fetch(`${harness.gateway.url}${src}`);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'none'");
    expect(csp).toContain("sandbox allow-scripts");
    expect(csp).not.toContain("allow-same-origin");
    expect(await fetch(`${harness.gateway.url}/app-frames/00000000-0000-0000-0000-000000000000`).then((r) => r.status)).toBe(404);
  });

  it("disarms an app's approval when another takes its place under the cursor: a second click at once approves nothing, a click once it is armed does", async () => {
    const frame = await page.locator(".app-frame iframe").elementHandle().then((handle) => handle?.contentFrame());
    if (!frame) throw new Error("the app's frame is not there");
    // Two calls from the app, asked about one after the other in the same place; the answers it gets are kept.
    await frame.evaluate(() => {
      const answered: unknown[] = [];
      (window as unknown as { answered: unknown[] }).answered = answered;
      window.addEventListener("message", (event) => {
        const id = (event.data as { id?: unknown }).id;
        if (id === "harmless" || id === "second") answered.push(id);
      });
      for (const [id, n] of [["harmless", 1], ["second", 1000]] as const) parent.postMessage({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "add-one", arguments: { n } } }, "*");
    });
    const answered = () => frame.evaluate(() => (window as unknown as { answered: unknown[] }).answered);
    const ask = page.locator(".app-frame").getByRole("group", { name: "Approve add-one" });
    const shown = () => ask.locator(".approval-args").textContent();
    await expect.poll(shown, { timeout: 15_000 }).toBe("n1");
    const allow = ask.getByRole("button", { name: "Allow once" });
    await expect.poll(() => allow.isEnabled(), { timeout: 15_000 }).toBe(true);
    const box = await allow.boundingBox();
    if (!box) throw new Error("Allow once is not on screen");
    const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
    // A double click meant for the first question: its second click lands on the question that took its place.
    await page.mouse.click(x, y);
    await page.mouse.click(x, y);
    await expect.poll(answered, { timeout: 15_000 }).toEqual(["harmless"]);
    expect(await shown()).toBe("n1000");
    expect(await page.evaluate(([px, py]) => (document.elementFromPoint(px!, py!) as HTMLButtonElement | null)?.textContent, [x, y])).toBe("Allow once");
    expect(await allow.isDisabled()).toBe(true);
    // Armed a moment later (waited for as the button's state, not timed), the same click allows it.
    await page.waitForFunction(([px, py]) => !(document.elementFromPoint(px!, py!) as HTMLButtonElement | null)?.disabled, [x, y], { timeout: 15_000 });
    await page.mouse.click(x, y);
    await expect.poll(answered, { timeout: 15_000 }).toEqual(["harmless", "second"]);
    await expect.poll(() => ask.count()).toBe(0);
  });

  it("asks the app to tear down, and waits for its answer, before its frame goes (ui/resource-teardown)", async () => {
    const said: string[] = [];
    page.on("console", (message) => said.push(message.text()));
    const turn = page.locator("#log .turn").filter({ has: page.locator(".app-frame") });
    await turn.locator(".msg.assistant").getByRole("button", { name: "Delete this exchange" }).click();
    await expect.poll(() => page.locator(".app-frame").count(), { timeout: 15_000 }).toBe(0);
    expect(said).toContain("counter app: resource-teardown");
  });

  it("shows the cards and the app on a phone", async () => {
    const { page: phone } = await openPage(chat.browser, harness.gateway.url, PHONE);
    await phone.locator(".empty-servers").waitFor();
    harness.upstream.push({ toolCalls: [{ name: "show-counter", arguments: { start: 7 } }] }, { text: "Counter on a phone." });
    await phone.locator("#input").fill("Counter please");
    await phone.keyboard.press("Enter");
    await phone.getByRole("button", { name: "Allow once" }).waitFor({ timeout: 15_000 });
    expect(await seriousViolations(phone)).toEqual([]);
    await shot(phone, "approval-phone");
    await phone.getByRole("button", { name: "Allow once" }).click();
    await expect.poll(() => phone.frameLocator(".app-frame iframe").locator("#count").textContent(), { timeout: 15_000 }).toBe("7");
    await shot(phone, "app-phone");
  });
});
