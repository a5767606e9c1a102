import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { chat, CLI, home, timeOnly, useChatTerminal, vllm } from "../../support/chat-terminal.js";
import type { RecordedRequest, VllmReply } from "../../support/vllm-server.js";

/**
 * `toolbridge chat` in a real terminal (tmux), driven as a person drives it: typing while an
 * answer streams, pasting, answering an approval with keys, Ctrl-C, resizing. Each test
 * asserts on the screen and on what the scripted model server received.
 */

const FILESYSTEM = fileURLToPath(new URL("../../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url));
const EVERYTHING = fileURLToPath(new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));

useChatTerminal();

/** A config with server-filesystem over `dir`, untrusted: its writes ask first. */
function filesystemConfig(dir: string): string {
  const file = join(home, "fs.json");
  writeFileSync(file, JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM, dir] } } }));
  return file;
}

type WireMessage = { role: string; content: unknown; tool_call_id?: string };
const messagesOf = (request: RecordedRequest | undefined): WireMessage[] => (request?.body?.messages ?? []) as WireMessage[];
const lastUser = (request: RecordedRequest | undefined) => messagesOf(request).filter((m) => m.role === "user").at(-1)?.content;

const longAnswer = (words: number): VllmReply => ({ text: "word ".repeat(words).trim(), chunkDelayMs: 30 });

describe("toolbridge chat in a terminal: typing during an answer", () => {
  it("queues what is typed while the answer streams, keeps it out of the answer, and sends each line after it", async () => {
    const s = await vllm([longAnswer(150), { text: "Got the draft." }]);
    const t = await chat(s);
    await t.type("tell me a story");
    await t.press("Enter");
    await t.until(() => s.chatRequests.length === 1, "the first request");
    await t.waitFor(/word word/, "the answer to stream");
    await t.type("draft");
    await t.press("Enter");
    await t.type("/save x.jsonl");
    await t.press("Enter");
    await t.waitFor(/queued: draft[\s\S]*queued: \/save x\.jsonl/, "both lines shown as queued");
    await t.waitFor(/Got the draft\./, "the second answer");
    await t.waitFor(/saved \d+ messages to x\.jsonl/, "the save");
    expect(s.chatRequests).toHaveLength(2);
    expect(lastUser(s.chatRequests[1])).toBe("draft");
    expect(existsSync(join(home, "x.jsonl"))).toBe(true);
    // The answer's lines hold only the answer.
    const screen = await t.history();
    for (const line of screen.split("\n").filter((l) => l.includes("word"))) expect(line).toMatch(/^(word ?)+$/);
  });

  it("cancels the answer on Esc without sending what was queued; Enter at the empty prompt sends it", async () => {
    const s = await vllm([longAnswer(400), { text: "Queued one answered." }]);
    const t = await chat(s);
    await t.type("tell me a story");
    await t.press("Enter");
    await t.waitFor(/word word/, "the answer to stream");
    await t.type("actually, stop");
    await t.press("Enter");
    await t.waitFor(/queued: actually, stop/, "the line queued");
    await t.press("Escape");
    await t.waitFor(/\(cancelled\)[\s\S]*queued \(paused\): actually, stop[\s\S]*Enter sends the queued messages/, "the queue kept, paused");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(s.chatRequests).toHaveLength(1);
    await t.press("Enter");
    await t.waitFor(/Queued one answered\./, "the queued message's answer");
    expect(lastUser(s.chatRequests[1])).toBe("actually, stop");
  });

  it("sends a bracketed paste of three lines as one message", async () => {
    const s = await vllm([{ text: "Three lines received." }]);
    const t = await chat(s);
    await t.paste("line one\nline two\nline three");
    await t.waitFor(/line three/, "the paste in the input box");
    expect(s.chatRequests).toHaveLength(0);
    await t.press("Enter");
    await t.waitFor(/Three lines received\./, "the answer");
    expect(s.chatRequests).toHaveLength(1);
    expect(lastUser(s.chatRequests[0])).toBe("line one\nline two\nline three");
  });

  it("starts a new line with Ctrl+J, with \\ then Enter, and with the kitty protocol's Shift+Enter", async () => {
    const s = await vllm([{ text: "ok" }]);
    const t = await chat(s);
    await t.type("a");
    await t.press("C-j");
    await t.type("b\\");
    await t.press("Enter");
    await t.type("c");
    await t.sendRaw("\x1b[13;2u");
    await t.type("d");
    await t.press("Enter");
    await t.waitFor(/\bok\b/, "the answer");
    expect(lastUser(s.chatRequests[0])).toBe("a\nb\nc\nd");
  });

  it("edits wide (CJK) characters by whole characters", async () => {
    const s = await vllm([{ text: "ok" }]);
    const t = await chat(s);
    await t.type("現在");
    await t.press("BSpace");
    await t.type("代");
    await t.press("Left");
    await t.type("X");
    await t.press("End", "BSpace", "BSpace", "BSpace");
    await t.type("/exit");
    await t.press("C-a");
    await t.type("問");
    await t.press("C-e", "Enter");
    await t.waitFor(/\bok\b/, "the answer");
    expect(lastUser(s.chatRequests[0])).toBe("問/exit");
  });
});

describe("toolbridge chat in a terminal: cancelling and quitting", () => {
  it("cancels the answer with Ctrl-C and goes on; Ctrl-C twice quits with status 0, the input box gone", async () => {
    const s = await vllm([longAnswer(400), { text: "Second answer." }]);
    const t = await chat(s);
    await t.type("a long story");
    await t.press("Enter");
    await t.waitFor(/word word/, "the answer to stream");
    await t.press("C-c");
    await t.waitFor(/\(cancelled\)/, "the cancellation");
    await t.type("next");
    await t.press("Enter");
    await t.waitFor(/Second answer\./, "the next answer");
    await t.press("C-c");
    await t.waitFor(/Ctrl-C again to quit/, "the hint");
    await t.press("C-c");
    expect(await t.exitCode()).toBe(0);
    const screen = await t.screen();
    expect(screen).not.toMatch(/╭|message, or \/help/);
    expect(screen).toMatch(/Second answer\./);
  });

  it("cancels with Esc, and quits with Ctrl-D at an empty prompt", async () => {
    const s = await vllm([longAnswer(400)]);
    const t = await chat(s);
    await t.type("a long story");
    await t.press("Enter");
    await t.waitFor(/word word/, "the answer to stream");
    await t.press("Escape");
    await t.waitFor(/\(cancelled\)/, "the cancellation");
    await t.press("C-d");
    expect(await t.exitCode()).toBe(0);
  });

  it("remembers what was sent across runs, in a private history file", async () => {
    const s = await vllm([{ text: "one" }, { text: "two" }]);
    let t = await chat(s);
    await t.type("remember me");
    await t.press("Enter");
    await t.waitFor(/\bone\b/, "the answer");
    await t.press("C-d");
    await t.exitCode();
    await t.close();
    const file = join(home, "state", "toolbridge", "history");
    expect(readFileSync(file, "utf8")).toContain('"remember me"');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    t = await chat(s);
    await t.press("Up", "Enter");
    await t.waitFor(/\btwo\b/, "the answer");
    expect(lastUser(s.chatRequests[1])).toBe("remember me");
  });
});

describe("toolbridge chat in a terminal: sessions", () => {
  it("saves the conversation as it goes, privately, and --continue picks it up and shows it", async () => {
    const s = await vllm([{ text: "Noted: blue." }, { text: "You said blue." }]);
    let t = await chat(s);
    await t.type("my colour is blue");
    await t.press("Enter");
    await t.waitFor(/Noted: blue\./, "the answer");
    await t.press("C-d");
    await t.exitCode();
    await t.close();
    const dir = join(home, "state", "toolbridge", "sessions");
    const saved = readdirSync(dir).filter((name) => name.endsWith(".jsonl"));
    expect(saved.length).toBeGreaterThan(0);
    expect(statSync(join(dir, saved[0]!)).mode & 0o777).toBe(0o600);
    t = await chat(s, timeOnly, ["--continue"]);
    await t.waitFor(/resumed [\w-]+: 2 messages/, "the resumed conversation");
    expect(await t.history()).toMatch(/› my colour is blue[\s\S]*Noted: blue\./);
    await t.type("what is my colour?");
    await t.press("Enter");
    await t.waitFor(/You said blue\./, "the answer");
    expect(messagesOf(s.chatRequests[1]).map((m) => m.content)).toEqual(["my colour is blue", "Noted: blue.", "what is my colour?"]);
  });

  it("starts a new saved session on /clear, leaving the one before as it was", async () => {
    const s = await vllm([{ text: "Noted: red." }, { text: "Fresh start." }]);
    const t = await chat(s);
    const dir = join(home, "state", "toolbridge", "sessions");
    const before = new Set(existsSync(dir) ? readdirSync(dir) : []);
    await t.type("my colour is red");
    await t.press("Enter");
    await t.waitFor(/Noted: red\./, "the answer");
    await t.type("/clear");
    await t.press("Enter");
    await t.waitFor(/conversation cleared/, "the clear");
    await t.type("hello again");
    await t.press("Enter");
    await t.waitFor(/Fresh start\./, "the answer");
    await t.until(() => readdirSync(dir).filter((name) => !before.has(name) && name.endsWith(".jsonl")).length === 2, "two saved sessions");
    const texts = readdirSync(dir)
      .filter((name) => !before.has(name) && name.endsWith(".jsonl"))
      .map((name) => readFileSync(join(dir, name), "utf8"));
    expect(texts.some((text) => text.includes("my colour is red") && !text.includes("hello again"))).toBe(true);
    expect(texts.some((text) => text.includes("hello again") && !text.includes("my colour is red"))).toBe(true);
  });

  it("saves with /save under a default name, expands ~, and /load shows what it loaded", async () => {
    const s = await vllm([{ text: "First answer." }]);
    const t = await chat(s);
    await t.type("remember this");
    await t.press("Enter");
    await t.waitFor(/First answer\./, "the answer");
    await t.type("/save");
    await t.press("Enter");
    await t.waitFor(/saved 2 messages to conversation-\d{8}-\d{6}\.jsonl/, "the default name");
    await t.type("/save ~/kept.jsonl");
    await t.press("Enter");
    await t.waitFor(/saved 2 messages to \//, "the expanded path");
    expect(existsSync(join(home, "kept.jsonl"))).toBe(true);
    await t.type("/clear");
    await t.press("Enter");
    await t.type("/load ~/kept.jsonl");
    await t.press("Enter");
    await t.waitFor(/› remember this\n\s*First answer\.\n\s*loaded 2 messages from/, "the loaded conversation shown");
  });
});

describe("toolbridge chat in a terminal: approval", () => {

  it("asks before server-filesystem's write_file runs; a denial with a reason reaches the model and the file is untouched", async () => {
    const dir = mkdtempSync(join(home, "files-"));
    writeFileSync(join(dir, "notes.txt"), "keep me");
    const s = await vllm([{ toolCalls: [{ name: "write_file", arguments: { path: join(dir, "notes.txt"), content: "overwritten" } }] }, { text: "I did not write it." }]);
    const t = await chat(s, filesystemConfig(dir));
    await t.type("overwrite my notes");
    await t.press("Enter");
    await t.waitFor(/Run write_file from server fs\?/, "the approval dialog");
    expect(await t.screen()).toMatch(/content: "overwritten"/);
    await t.type("n");
    await t.waitFor(/Reason/, "the reason field");
    await t.type("not today");
    await t.press("Enter");
    await t.waitFor(/I did not write it\./, "the answer");
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("keep me");
    const tool = messagesOf(s.chatRequests[1]).find((m) => m.role === "tool");
    expect(String(tool?.content)).toContain("The user said: not today");
  });

  it("runs the tool when allowed once, and asks again the next time", async () => {
    const dir = mkdtempSync(join(home, "files-"));
    const target = join(dir, "notes.txt");
    const s = await vllm([
      { toolCalls: [{ name: "write_file", arguments: { path: target, content: "first" } }] },
      { text: "Written." },
      { toolCalls: [{ name: "write_file", arguments: { path: target, content: "second" } }] },
      { text: "Asked again." },
    ]);
    const t = await chat(s, filesystemConfig(dir));
    await t.type("write it");
    await t.press("Enter");
    await t.waitFor(/Run write_file/, "the approval dialog");
    await t.type("y");
    await t.waitFor(/Written\./, "the answer");
    expect(readFileSync(target, "utf8")).toBe("first");
    await t.type("again");
    await t.press("Enter");
    await t.waitFor(/Run write_file[\s\S]*content: "second"/, "a second dialog");
    await t.press("Escape");
    await t.waitFor(/Asked again\./, "the answer");
    expect(readFileSync(target, "utf8")).toBe("first");
  });
});

describe("toolbridge chat in a terminal: the arguments an approval shows", () => {

  it("shows a write_file's content whole at 60 columns, its last line included", async () => {
    const dir = mkdtempSync(join(home, "files-"));
    const content = "line 1 harmless\nline 2 harmless\nline 3 harmless\nline 4 harmless and then; rm -rf / --no-preserve-root";
    const s = await vllm([{ toolCalls: [{ name: "write_file", arguments: { path: join(dir, "setup.sh"), content } }] }, { text: "Not written." }]);
    const t = await chat(s, filesystemConfig(dir), [], 60);
    await t.type("write the script");
    await t.press("Enter");
    await t.waitFor(/Run write_file from server fs\?/, "the approval dialog");
    const screen = await t.screen();
    expect(screen).toMatch(/content: \(4 lines\)/);
    // The last line wraps inside the dialog; joined, it is all there.
    expect(screen.replace(/\s*│\s*(│ )?/g, "")).toContain("line 4 harmless and then; rm -rf / --no-preserve-root");
    await t.type("n");
    await t.press("Enter");
    await t.waitFor(/Not written\./, "the answer");
  });

  it("scrolls arguments taller than the dialog, and allows only once all of them were shown", async () => {
    const dir = mkdtempSync(join(home, "files-"));
    const target = join(dir, "long.txt");
    const content = [...Array.from({ length: 40 }, (_, i) => `harmless line ${i + 1}`), "rm -rf / # the last line"].join("\n");
    const s = await vllm([{ toolCalls: [{ name: "write_file", arguments: { path: target, content } }] }, { text: "Written." }]);
    const t = await chat(s, filesystemConfig(dir), [], 80, { rows: 30 });
    await t.type("write it");
    await t.press("Enter");
    await t.waitFor(/↓ \d+ more lines · PgDn\/Space and PgUp scroll/, "the scroll indicator");
    expect(await t.screen()).not.toContain("rm -rf /");
    await t.type("y");
    await t.waitFor(/Scroll to the end of the arguments before allowing/, "allowing refused while lines are unseen");
    expect(existsSync(target)).toBe(false);
    for (let page = 0; page < 10 && !(await t.screen()).includes("end of the arguments ·"); page++) await t.press("NPage");
    expect(await t.screen()).toContain("rm -rf / # the last line");
    await t.type("y");
    await t.waitFor(/Written\./, "the answer");
    expect(readFileSync(target, "utf8")).toBe(content);
  });
});

describe("toolbridge chat in a terminal: hostile text", () => {
  it("never lets a tool result or the model retitle the terminal or hide text", async () => {
    const config = join(home, "everything.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], trust: true } } }));
    const s = await vllm([
      { toolCalls: [{ name: "echo", arguments: { message: "\x1b]2;PWNED\x07 visible \x1b[8mHIDDEN" } }] },
      { text: "Model says \x1b]0;OWNED\x07 and \x1b[8msecret\x1b[0m here." },
    ]);
    const t = await chat(s, config);
    const before = await t.title();
    await t.type("echo it");
    await t.press("Enter");
    await t.waitFor(/here\./, "the answer");
    const screen = await t.history();
    expect(await t.title()).toBe(before);
    expect(await t.title()).not.toMatch(/PWNED|OWNED/);
    expect(screen).toMatch(/visible HIDDEN/);
    expect(screen).toMatch(/Model says\s+and secret here\./);
  });
});

describe("toolbridge chat in a terminal: status and width", () => {
  it("shows a running tool's seconds and the progress server-everything reports", async () => {
    const config = join(home, "everything-progress.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], trust: true } } }));
    const s = await vllm([{ toolCalls: [{ name: "trigger-long-running-operation", arguments: { duration: 4, steps: 4 } }] }, { text: "All done." }]);
    const t = await chat(s, config);
    await t.type("run the long one");
    await t.press("Enter");
    await t.waitFor(/trigger-long-running-operation\(duration: 4, steps: 4\) · [1-9] s · (25|50|75)%/, "the seconds and the progress in the live block");
    await t.waitFor(/All done\./, "the answer");
  });

  it("opens the prompt while a server hangs, shows each server as it starts, and sends a turn once the hung one has failed", async () => {
    const config = join(home, "hanging.json");
    const hang = fileURLToPath(new URL("../../fixtures/servers/hang-on-initialize.mjs", import.meta.url));
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          time: { command: process.execPath, args: [CLI, "serve", "time"], trust: true },
          stuck: { command: process.execPath, args: [hang], startupTimeoutMs: 4000 },
        },
      }),
    );
    const s = await vllm([{ text: "Answered." }]);
    const t = await chat(s, config);
    await t.waitFor(/starting servers: [^\n]*stuck/, "the servers starting");
    await t.waitFor(/● server time: 1 tool/, "the time server's line");
    await t.type("hello");
    await t.press("Enter");
    await t.waitFor(/waiting for stuck to start… \d+ s/, "the turn waiting for the hung server");
    expect(s.chatRequests).toHaveLength(0);
    await t.waitFor(/● server stuck failed to start: [^\n]*\n[\s\S]*Answered\./, "the failure, then the answer");
    expect(s.chatRequests).toHaveLength(1);
    expect(s.chatRequests[0]?.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(["get-date"]);
  });

  it("opens the input box before the model server answers, and sends what was typed meanwhile once it does", async () => {
    let ready: () => void = () => undefined;
    const s = await vllm([{ text: "Ready now." }], { modelsReady: new Promise<void>((resolve) => (ready = resolve)) });
    const t = await chat(s);
    await t.waitFor(/connecting to the model server…/, "the starting line");
    await t.type("early question");
    await t.press("Enter");
    await t.waitFor(/queued: early question/, "the message queued");
    expect(s.chatRequests).toHaveLength(0);
    ready();
    await t.waitFor(/Ready now\./, "the answer");
    expect(lastUser(s.chatRequests[0])).toBe("early question");
    expect(await t.screen()).not.toMatch(/connecting to the model server/);
  });

  it("quits with Ctrl-C while the model server has not answered, with status 0 and no server left", async () => {
    let ready: () => void = () => undefined;
    const s = await vllm([], { modelsReady: new Promise<void>((resolve) => (ready = resolve)) });
    const t = await chat(s);
    await t.waitFor(/connecting to the model server…/, "the starting line");
    await t.press("C-c");
    await t.waitFor(/stopping…/, "the stop");
    ready();
    expect(await t.exitCode()).toBe(0);
    expect(s.chatRequests).toHaveLength(0);
  });

  it("shows a spinner with the seconds waited while the model has not answered", async () => {
    const s = await vllm([{ text: "at last", delayMs: 2500 }]);
    const t = await chat(s);
    await t.type("slow");
    await t.press("Enter");
    await t.waitFor(/waiting for the model… [12] s/, "the spinner with seconds");
    await t.waitFor(/at last/, "the answer");
    expect(await t.screen()).not.toMatch(/waiting for the model/);
  });

  it("draws a markdown table aligned, within 60 columns", async () => {
    const s = await vllm([{ text: "Times:\n\n| city | local time | note |\n|---|---|---|\n| 台北 | 22:30 | a long note that will not fit in the narrow terminal at all |\n| New York | 09:30 | short |\n\nDone." }]);
    const t = await chat(s);
    await t.resize(60, 30);
    await t.type("times");
    await t.press("Enter");
    await t.waitFor(/Done\./, "the answer");
    const lines = (await t.history()).split("\n").filter((line) => /^[│┌├└]/.test(line) && !line.includes("›"));
    expect(lines.length).toBeGreaterThan(5);
    expect(new Set(lines.map((line) => stringWidth(line))).size, lines.join("\n")).toBe(1);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(60);
    expect(lines.some((line) => line.includes("│ 台北"))).toBe(true);
    expect((await t.history()).includes("|---|")).toBe(false);
  });

  it("wraps the answer at word boundaries at 60 columns, after a resize", async () => {
    const words = "internationalization consideration responsibility understanding".split(" ");
    const text = Array.from({ length: 40 }, (_, i) => words[i % words.length]).join(" ");
    const s = await vllm([{ text }]);
    const t = await chat(s);
    await t.resize(60, 30);
    await t.type("long words");
    await t.press("Enter");
    await t.waitFor(/\d+ in · \d+ out/, "the usage line");
    const lines = (await t.history()).split("\n").filter((line) => /internationalization|consideration|responsibility|understanding/.test(line));
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) {
      expect(line.length).toBeLessThanOrEqual(60);
      for (const word of line.trim().split(" ")) expect(words).toContain(word);
    }
  });
});
