/**
 * The web chat in Debian's Chromium (headless, through playwright-core), against the gateway on loopback:
 *   - first render: from navigation to the message box and the empty state on screen, median of
 *     10 loads in fresh browser contexts; beside it a bare HTML page from a plain Node server on the
 *     same loopback (what any page costs in this browser), as a ratio;
 *   - the bundle's size, minified and gzipped;
 *   - main-thread long tasks (the browser's Long Tasks API: anything over 50 ms) while an answer
 *     of 10,000 tokens streams at 100 tokens/s, with markdown, code and tables in it; per tenth of
 *     the stream, so growth shows (goal: none over 50 ms).
 * BENCH_WEB_TOKENS overrides the answer's length.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { cpus, loadavg } from "node:os";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import type { Browser } from "playwright-core";
import { startHarness } from "../test/gateway/harness.js";
import { CHROMIUM, DESKTOP, launch } from "../test/web/browser.js";
import { median } from "./support/median.js";

const TOKENS = Number(process.env.BENCH_WEB_TOKENS ?? 10_000);
const TOKEN_DELAY_MS = 10;
const WEB = fileURLToPath(new URL("../dist/web/", import.meta.url));

/** About `tokens` one-token words: paragraphs, and every 500 tokens a code block and a table. */
function markdownAnswer(tokens: number): string {
  const words = ["the", "tool", "call", "ran", "and", "said", "that", "time", "is", "now"];
  let text = "";
  for (let i = 1; i <= tokens; i++) {
    text += words[i % words.length] + " ";
    if (i % 60 === 0) text += "\n\n";
    if (i % 500 === 0) text += "```ts\nconst total = items.reduce((sum, item) => sum + item.price, 0); // sum\n```\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n";
  }
  return text.trim();
}

async function timeToRender(browser: Browser, url: string, ready: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 10; i++) {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const start = performance.now();
    await page.goto(url);
    await page.locator(ready).first().waitFor();
    times.push(performance.now() - start);
    await context.close();
  }
  return median(times);
}

async function firstRender(browser: Browser, gatewayUrl: string): Promise<void> {
  const bare = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!doctype html><title>bare</title><p id=ready>ready</p>");
  });
  await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
  try {
    const chat = await timeToRender(browser, `${gatewayUrl}/`, ".empty-servers");
    const plain = await timeToRender(browser, `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`, "#ready");
    console.log(`\nweb chat first render on loopback (to the empty state with its servers): median ${chat.toFixed(0)} ms of 10; a bare HTML page: ${plain.toFixed(0)} ms; ratio ${(chat / plain).toFixed(2)}`);
  } finally {
    bare.close();
  }
}

function bundleSize(): void {
  const sizes = ["app.js", "app.css", "index.html"].map((file) => {
    const body = readFileSync(`${WEB}${file}`);
    return { file, raw: body.length, gzip: gzipSync(body, { level: 9 }).length };
  });
  const total = sizes.reduce((sum, size) => sum + size.gzip, 0);
  console.log(`web chat bundle: ${sizes.map((s) => `${s.file} ${(s.raw / 1024).toFixed(1)} KiB (${(s.gzip / 1024).toFixed(1)} KiB gzipped)`).join(", ")}; total gzipped ${(total / 1024).toFixed(1)} KiB`);
}

async function longTasks(browser: Browser, harness: Awaited<ReturnType<typeof startHarness>>): Promise<void> {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${harness.gateway.url}/`);
  await page.locator(".empty-servers").waitFor();
  await page.evaluate(() => {
    const seen: { start: number; duration: number }[] = [];
    (window as unknown as { longTasks: typeof seen }).longTasks = seen;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) seen.push({ start: entry.startTime, duration: entry.duration });
    }).observe({ type: "longtask", buffered: false });
  });
  harness.upstream.push({ text: markdownAnswer(TOKENS), chunkDelayMs: TOKEN_DELAY_MS });
  // Chromium's own counters of the renderer's main thread: how much of the stream's time it was busy, and with what.
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  const counters = async () => Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((metric) => [metric.name, metric.value]));
  const before = await counters();
  const start = await page.evaluate(() => performance.now());
  await page.locator("#input").fill("go");
  await page.keyboard.press("Enter");
  await page.locator("#log .msg.assistant .usage, #log .msg.assistant .actions").first().waitFor({ timeout: (TOKENS * TOKEN_DELAY_MS) * 3 + 60_000 });
  const end = await page.evaluate(() => performance.now());
  const after = await counters();
  const busy = (name: string) => (after[name] ?? 0) - (before[name] ?? 0);
  const tasks = await page.evaluate(() => (window as unknown as { longTasks: { start: number; duration: number }[] }).longTasks);
  const tenth = (end - start) / 10;
  const rows = Array.from({ length: 10 }, (_, i) => tasks.filter((task) => task.start >= start + i * tenth && task.start < start + (i + 1) * tenth));
  console.log(`web chat main thread while ${TOKENS} tokens stream at ${1000 / TOKEN_DELAY_MS} tokens/s (Chromium, ${DESKTOP.width}x${DESKTOP.height}): ${((end - start) / 1000).toFixed(1)} s`);
  console.log("tenth   long tasks (>50 ms)   longest ms   blocked ms (sum of each over 50)");
  rows.forEach((row, i) => {
    const longest = Math.max(0, ...row.map((task) => task.duration));
    const blocked = row.reduce((sum, task) => sum + task.duration - 50, 0);
    console.log(`${String(i + 1).padStart(5)}   ${String(row.length).padStart(19)}   ${longest.toFixed(0).padStart(10)}   ${blocked.toFixed(0).padStart(8)}`);
  });
  const longest = Math.max(0, ...tasks.map((task) => task.duration));
  console.log(`long tasks in all: ${tasks.length}, longest ${longest.toFixed(0)} ms (goal: none over 50 ms)`);
  const seconds = (end - start) / 1000;
  console.log(`main thread busy ${((busy("TaskDuration") / seconds) * 100).toFixed(1)}% of the stream's ${seconds.toFixed(1)} s: script ${busy("ScriptDuration").toFixed(1)} s, layout ${busy("LayoutDuration").toFixed(1)} s, style ${busy("RecalcStyleDuration").toFixed(1)} s (load average during the run: ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores)`);
  await context.close();
}

export async function run(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    console.log("\nweb chat: skipped (no Chromium at /usr/bin/chromium)");
    return;
  }
  bundleSize();
  const harness = await startHarness({ trustTime: true });
  const browser = await launch();
  try {
    await firstRender(browser, harness.gateway.url);
    await longTasks(browser, harness);
  } finally {
    await browser.close();
    await harness.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
