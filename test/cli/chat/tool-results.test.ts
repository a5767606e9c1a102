import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import picocolors from "picocolors";
import stringWidth from "string-width";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentSession } from "../../../src/cli/chat/session.js";
import { runSlashCommand } from "../../../src/cli/chat/slash-commands.js";
import { ToolResults } from "../../../src/cli/chat/tool-results.js";

const plain = picocolors.createColors(false);
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

describe("the kept tool results", () => {
  it("numbers results from 1 and gives the last by default", () => {
    const results = new ToolResults();
    expect(results.get()).toBe("no tool has been called yet");
    expect(results.add("a", { content: [{ type: "text", text: "one" }] }, "one")).toBe(1);
    expect(results.add("b", undefined, "denied")).toBe(2);
    expect(results.get()).toMatchObject({ number: 2, name: "b", summary: "denied" });
    expect(results.get(1)).toMatchObject({ number: 1, name: "a" });
    expect(results.get(3)).toBe("there is no tool result 3: they are numbered 1 to 2");
  });

  it("keeps the newest within the count bound and says which were dropped", () => {
    const results = new ToolResults({ count: 2, chars: 1_000_000 });
    for (let i = 0; i < 5; i++) results.add("t", { content: [{ type: "text", text: `r${i}` }] }, `r${i}`);
    expect(results.get(4)).toMatchObject({ number: 4 });
    expect(results.get(5)).toMatchObject({ number: 5 });
    expect(results.get(3)).toBe("tool result 3 was dropped: the chat keeps the last 2 results, 1 MB at most");
  });

  it("keeps the newest within the size bound; one larger than the bound is dropped itself", () => {
    const results = new ToolResults({ count: 100, chars: 2 * 1024 * 1024 });
    const big = "x".repeat(900 * 1024);
    for (let i = 0; i < 3; i++) results.add("t", { content: [{ type: "text", text: big }] }, "x");
    expect(typeof results.get(1)).toBe("string");
    expect(results.get(2)).toMatchObject({ number: 2 });
    results.add("huge", { content: [{ type: "text", text: "y".repeat(3 * 1024 * 1024) }] }, "y");
    expect(results.get(4)).toMatch(/^tool result 4 was dropped/);
    expect(results.get(3)).toMatch(/^tool result 3 was dropped/);
  });
});

describe("/result and /image", () => {
  let dir: string;
  let printed: string[];
  let results: ToolResults;
  const run = (line: string, columns = 60) => runSlashCommand(line, { session: {} as AgentSession, colors: plain, print: (text) => printed.push(text), columns, toolResults: results });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "toolbridge-results-"));
    vi.spyOn(process, "cwd").mockReturnValue(dir);
    printed = [];
    results = new ToolResults();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    rmSync(dir, { recursive: true, force: true });
  });

  it("/result prints the whole result, cleaned and wrapped to the width", async () => {
    const words = Array.from({ length: 400 }, (_, i) => `word${i}`);
    results.add("long", { content: [{ type: "text", text: `${words.join(" ")}\n\x1b]2;PWNED\x07end` }] }, "cut…");
    results.add("other", { content: [{ type: "text", text: "short" }] }, "short");
    await run("/result 1");
    const [out = ""] = printed;
    const lines = out.split("\n");
    expect(lines[0]).toBe("[1] long");
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(60);
    expect(lines.slice(1).join(" ").split(/\s+/).slice(0, 400)).toEqual(words);
    expect(out).not.toContain("\x1b");
    expect(out).not.toContain("PWNED");
    printed = [];
    await run("/result");
    expect(printed).toEqual(["[2] other\nshort"]);
    printed = [];
    await run("/result x");
    expect(printed).toEqual([plain.red("usage: /result [N]")]);
  });

  it("/image writes the last image to a private file here, and never over an existing one", async () => {
    results.add("draw", { content: [{ type: "text", text: "here" }, { type: "image", mimeType: "image/png", data: PNG_1X1 }] }, "here");
    results.add("say", { content: [{ type: "text", text: "no picture" }] }, "no picture");
    await run("/image");
    const file = join(dir, "image-1.png");
    expect(readFileSync(file)).toEqual(Buffer.from(PNG_1X1, "base64"));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(printed.at(-1)).toMatch(/^saved image image\/png, 1×1 px, \d+ bytes to image-1\.png$/);
    await run("/image 1");
    expect(printed.at(-1)).toBe("could not save to image-1.png: it exists already; name another file");
    await run("/image 2");
    expect(printed.at(-1)).toBe("tool result 2 has no image");
  });

  it("/image N FILE expands ~ and names further images of the result after the first", async () => {
    const home = join(dir, "home");
    vi.stubEnv("HOME", home);
    mkdirSync(home);
    results.add("two", { content: [{ type: "image", mimeType: "image/png", data: PNG_1X1 }, { type: "image", mimeType: "image/png", data: PNG_1X1 }] }, "");
    await run("/image 1 ~/shot.png");
    expect(statSync(join(home, "shot.png")).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, "shot-2.png")).mode & 0o777).toBe(0o600);
  });
});
