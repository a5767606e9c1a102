import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledServer } from "../../src/config/bundled-servers.js";
import type { Harness } from "../gateway/harness.js";
import { CHROMIUM, DESKTOP, lastAnswer, openChat, openPage, overflowing, PHONE, say, seriousViolations, shot, type Chat } from "./browser.js";

/**
 * The web chat's approval card at the grain a person means, in headless Chromium: an edit of a file shown as a
 * diff (old against new lines, coloured, whole, seen before Allow), and "allow all tools of this server for this
 * session" beside once and this tool, honoured through the gateway's policy (a deny rule still refuses).
 */

const FILESYSTEM = join(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");

describe.skipIf(!existsSync(CHROMIUM))("the web chat's approval card", () => {
  let chat: Chat;
  let harness: Harness;
  let page: Page;
  const root = realpathSync(mkdtempSync(join(tmpdir(), "toolbridge-approval-card-")));

  beforeAll(async () => {
    chat = await openChat(
      {
        servers: { fs: { command: process.execPath, args: [FILESYSTEM, root], trust: false }, time: { ...bundledServer("time"), trust: false } },
        approve: "ask",
        // server-filesystem takes the roots it is offered in place of its arguments.
        roots: [root],
        turnSettings: { rules: { deny: ["fs__move_file"] } },
      },
      DESKTOP,
    );
    ({ harness, page } = chat);
  }, 60_000);
  afterAll(() => chat?.close().finally(() => rmSync(root, { recursive: true, force: true })));

  it("shows an edit of a file as a diff: old lines red with -, new lines green with +, all 61 on screen before Allow", async () => {
    const file = join(root, "notes.txt");
    const before = Array.from({ length: 61 }, (_, i) => `line ${i + 1} of the notes`);
    const after = before.map((line, i) => (i % 20 === 5 ? `${line}, changed` : line));
    writeFileSync(file, `${before.join("\n")}\n`);
    harness.upstream.push(
      { toolCalls: [{ name: "edit_file", arguments: { path: file, edits: [{ oldText: before.join("\n"), newText: after.join("\n") }] } }] },
      { text: "Edited." },
    );
    await say(page, "Mark lines 6, 26 and 46 as changed.");
    const approval = page.getByRole("group", { name: "Approve edit_file" });
    await approval.waitFor({ timeout: 15_000 });
    const diff = approval.locator(".diff");
    expect(await diff.locator(".diff-count").textContent()).toBe("3 lines out, 3 in");
    expect(await diff.locator(".diff-removed").allTextContents()).toEqual(["- line 6 of the notes", "- line 26 of the notes", "- line 46 of the notes"]);
    expect(await diff.locator(".diff-added").allTextContents()).toEqual(["+ line 6 of the notes, changed", "+ line 26 of the notes, changed", "+ line 46 of the notes, changed"]);
    // Every line, each on its own: no "\n" escapes, nothing cut.
    const lines = (await diff.locator("pre").textContent())?.split("\n").filter(Boolean) ?? [];
    expect(lines).toHaveLength(64);
    expect(lines.at(-1)).toBe("  line 61 of the notes");
    expect(await approval.textContent()).not.toContain("\\n");
    const colour = (selector: string) => diff.locator(selector).first().evaluate((line) => getComputedStyle(line).backgroundColor);
    expect(new Set([await colour(".diff-removed"), await colour(".diff-added"), await colour(".diff-same")]).size).toBe(3);
    // Taller than the screen: Allow waits until every line has been on screen.
    const allow = approval.getByRole("button", { name: "Allow once" });
    expect(await allow.isDisabled()).toBe(true);
    await shot(page, "approval-diff-desktop");
    for (const block of ["start", "center", "end"] as const) await approval.locator(".approval-args").evaluate((element, where) => element.scrollIntoView({ block: where }), block);
    await expect.poll(() => allow.isEnabled(), { timeout: 15_000 }).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await allow.click();
    await expect.poll(() => lastAnswer(page).textContent(), { timeout: 15_000 }).toContain("Edited.");
    expect(readFileSync(file, "utf8")).toBe(`${after.join("\n")}\n`);
  });

  it("on a phone, wraps an edit's long lines inside the card: nothing sticks out sideways, every button on screen", async () => {
    const { context, page: phone } = await openPage(chat.browser, harness.gateway.url, PHONE);
    try {
      await phone.locator(".empty-servers").waitFor({ timeout: 15_000 });
      const file = join(root, "wide.txt");
      const old = `${"a long line of the file that does not fit a phone ".repeat(4)}\nsecond line`;
      writeFileSync(file, old);
      harness.upstream.push({ toolCalls: [{ name: "edit_file", arguments: { path: file, edits: [{ oldText: old, newText: old.replace("second", "2nd") }] } }] }, { text: "Edited on the phone." });
      await say(phone, "Edit it.");
      const approval = phone.getByRole("group", { name: "Approve edit_file" });
      await approval.waitFor({ timeout: 15_000 });
      await approval.locator(".diff").scrollIntoViewIfNeeded();
      expect(await overflowing(phone)).toEqual([]);
      await shot(phone, "approval-diff-phone");
      for (const name of ["Allow once", "Allow for this session", "Allow all tools of fs for this session", "Deny…"]) {
        const button = approval.getByRole("button", { name });
        await button.scrollIntoViewIfNeeded();
        const box = await button.boundingBox();
        expect(box !== null && box.x >= 0 && box.x + box.width <= PHONE.width).toBe(true);
      }
      await approval.getByRole("button", { name: "Allow once" }).click();
      await expect.poll(() => lastAnswer(phone).textContent(), { timeout: 15_000 }).toContain("Edited on the phone.");
    } finally {
      await context.close();
    }
  });

  it("allows every tool of a server for the session: its other tools run unasked, a deny rule still refuses, another server is still asked", async () => {
    harness.upstream.push({ toolCalls: [{ name: "write_file", arguments: { path: join(root, "a.txt"), content: "a" } }] }, { text: "Written." });
    await say(page, "Write a.txt.");
    const approval = page.getByRole("group", { name: "Approve write_file" });
    await approval.waitFor({ timeout: 15_000 });
    await shot(page, "approval-server-desktop");
    await approval.getByRole("button", { name: "Allow all tools of fs for this session" }).click();
    await expect.poll(() => lastAnswer(page).textContent(), { timeout: 15_000 }).toContain("Written.");

    // Another tool of the same server, in a later turn: not asked.
    harness.upstream.push({ toolCalls: [{ name: "create_directory", arguments: { path: join(root, "made") } }] }, { text: "Made." });
    await say(page, "Make a directory.");
    await expect.poll(() => lastAnswer(page).textContent(), { timeout: 15_000 }).toContain("Made.");
    expect(await lastAnswer(page).locator(".tool-state").textContent()).toBe("done");
    expect(existsSync(join(root, "made"))).toBe(true);

    // A tool the config's deny rule names: refused, nobody asked, whatever was allowed.
    harness.upstream.push({ toolCalls: [{ name: "move_file", arguments: { source: join(root, "a.txt"), destination: join(root, "b.txt") } }] }, { text: "Not moved." });
    await say(page, "Move it.");
    await expect.poll(() => lastAnswer(page).textContent(), { timeout: 15_000 }).toContain("Not moved.");
    expect(existsSync(join(root, "a.txt"))).toBe(true);
    expect(JSON.stringify(harness.upstream.chatRequests.at(-1)?.body.messages)).toContain('denied by the rule \\"fs__move_file\\"');

    // Another server's tool: still asked.
    harness.upstream.push({ toolCalls: [{ name: "get-date", arguments: {} }] }, { text: "Dated." });
    await say(page, "What is the date?");
    await page.getByRole("group", { name: "Approve get-date" }).waitFor({ timeout: 15_000 });
    await page.getByRole("group", { name: "Approve get-date" }).getByRole("button", { name: "Allow once" }).click();
    await expect.poll(() => lastAnswer(page).textContent(), { timeout: 15_000 }).toContain("Dated.");
  });
});
