import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import stringWidth from "string-width";
import { beforeAll, describe, expect, it } from "vitest";
import { chat as chatIn, home, PROMPT, timeOnly, useChatTerminal, vllm } from "../../support/chat-terminal.js";
import type { Tmux } from "../../support/tmux.js";
import type { VllmReply } from "../../support/vllm-server.js";

/**
 * How the chat draws answers and tool results in a real terminal (tmux): markdown fitted to
 * the width, re-wrapped when the terminal is resized, whole tool results on request, images
 * saved to files.
 */

const EVERYTHING = fileURLToPath(new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));

useChatTerminal();
let everything: string;
beforeAll(() => {
  everything = join(home, "everything.json");
  writeFileSync(everything, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], trust: true } } }));
});

async function chat(replies: VllmReply[], columns: number, config = timeOnly): Promise<Tmux> {
  return chatIn(await vllm(replies), config, [], columns);
}

async function ask(t: Tmux, text: string): Promise<void> {
  await t.type(text);
  await t.press("Enter");
}

const WORDS = "internationalization consideration responsibility understanding".split(" ");
/** Whether every line holding the words fits `width` and holds only whole words. */
function wrappedAt(screen: string, width: number): boolean {
  const lines = screen.split("\n").filter((line) => WORDS.some((word) => line.includes(word)));
  return lines.length > 3 && lines.every((line) => stringWidth(line) <= width && line.trim().split(" ").every((word) => WORDS.includes(word)));
}

describe("toolbridge chat in a terminal: rendering", () => {
  it("draws a table and a code block at 60 columns", async () => {
    const code = 'const greeting: string = "hello";\nconsole.log(greeting);';
    const table = "| city | local time | note |\n|:--|--:|---|\n| 台北 | 22:30 | a long note that will not fit in the narrow terminal at all |\n| New York | 9:30 | short |";
    const t = await chat([{ text: `Times:\n\n${table}\n\n\`\`\`ts\n${code}\n\`\`\`\n\nDone.` }], 60);
    await ask(t, "times");
    await t.waitFor(/Done\./, "the answer");
    const screen = await t.history();
    const rows = screen.split("\n").filter((line) => /^[│┌├└]/.test(line));
    expect(rows.length).toBeGreaterThan(5);
    expect(new Set(rows.map((line) => stringWidth(line))).size, rows.join("\n")).toBe(1);
    for (const line of rows) expect(stringWidth(line)).toBeLessThanOrEqual(60);
    expect(rows.some((line) => /^│ 台北 +│ +22:30 │/.test(line))).toBe(true);
    expect(rows.some((line) => /^│ New York │ +9:30 │/.test(line))).toBe(true);
    expect(screen).not.toContain("|--");
    // The code block: its lines as written between two rules, the fences gone.
    expect(screen).toMatch(/── ts ──\nconst greeting: string = "hello";\nconsole\.log\(greeting\);\n────/);
    expect(screen).not.toContain("```");
  });

  it("re-wraps what was already drawn when the terminal narrows from 100 to 60 columns", async () => {
    const text = Array.from({ length: 40 }, (_, i) => WORDS[i % WORDS.length]).join(" ");
    const t = await chat([{ text }], 100);
    await ask(t, "long words");
    await t.waitFor(/\d+ in · \d+ out/, "the usage line");
    expect(wrappedAt(await t.screen(), 100)).toBe(true);
    expect(wrappedAt(await t.screen(), 60)).toBe(false);
    await t.resize(60, 30);
    await t.waitFor((screen) => wrappedAt(screen, 60) && PROMPT.test(screen), "the answer re-wrapped at 60 columns");
    const screen = await t.screen();
    // Drawn once: the answer's first words are on the screen once, and the prompt after them.
    expect(screen.match(/long words/g)).toHaveLength(1);
  });
});

describe("toolbridge chat in a terminal: tool results", () => {
  it("shows a long result's head in its numbered block, and /result shows it whole", async () => {
    const words = Array.from({ length: 120 }, (_, i) => `w${i + 1}`);
    const t = await chat([{ toolCalls: [{ name: "echo", arguments: { message: words.join(" ") } }] }, { text: "Echoed." }], 80, everything);
    await ask(t, "echo a lot");
    await t.waitFor(/Echoed\./, "the answer");
    const block = await t.history();
    expect(block).toMatch(/✓ \[1\] echo/);
    expect(block).toContain("(/result 1 shows it whole)");
    expect(block).not.toContain("w120");
    await ask(t, "/result");
    await t.waitFor(/w120/, "the whole result");
    const shown = (await t.history()).split("[1] echo").at(-1) ?? "";
    expect(shown.split(/\s+/).filter((word) => /^w\d+$/.test(word))).toEqual(words);
    for (const line of shown.split("\n")) expect(stringWidth(line)).toBeLessThanOrEqual(80);
  });

  it("describes an image from a tool, and /image writes it to a private file", async () => {
    const t = await chat([{ toolCalls: [{ name: "get-tiny-image", arguments: {} }] }, { text: "A tiny image." }], 100, everything);
    await ask(t, "show me the image");
    await t.waitFor(/A tiny image\./, "the answer");
    expect(await t.history()).toMatch(/image image\/png, 20×20 px, [\d.]+ (KB|bytes) · \/image 1 saves it/);
    await ask(t, "/image");
    await t.waitFor(/saved image image\/png, 20×20 px, [\d.]+ (KB|bytes) to image-1\.png/, "the image saved");
    const file = join(home, "image-1.png");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file).subarray(1, 4).toString("latin1")).toBe("PNG");
    rmSync(file);
  });
});
