import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI } from "../support/cli.js";
import { bundledServer, cliTestSetup, writeConfig } from "../support/cli-setup.js";
import { freePort } from "../support/free-port.js";
import { childPids, isAlive } from "../support/processes.js";
import type { RecordedRequest, VllmReply, VllmServer } from "../support/vllm-server.js";

/**
 * `toolbridge run` and `toolbridge chat` end to end: the built CLI, the bundled time and
 * math servers, and a scripted server that streams what vLLM streams.
 */

let home: string;
/** A config with only the bundled time server: one process fewer to start per run. */
let timeOnly: string;
const { startModel } = cliTestSetup("toolbridge-agent-cli-", (dir) => {
  home = dir;
  timeOnly = writeConfig(dir, "time-only.json", { time: bundledServer("time") });
});

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Processes the CLI started (the MCP servers), seen while it ran. */
  children: number[];
}

function cliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: home, NO_COLOR: "1" };
  delete env.OPENAI_BASE_URL;
  delete env.OPENAI_API_KEY;
  delete env.FORCE_COLOR;
  return env;
}



/** Runs the CLI; `interruptWhen` sends `signal` (SIGINT unless told) once it returns true (polled). */
function runCli(args: string[], options: { input?: string; interruptWhen?: () => boolean; signal?: NodeJS.Signals; killAfterMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: home, env: cliEnv(), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const children = new Set<number>();
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const poll = setInterval(() => {
      if (child.pid) for (const pid of childPids(child.pid)) children.add(pid);
      if (options.interruptWhen?.()) {
        options.interruptWhen = undefined;
        child.kill(options.signal ?? "SIGINT");
      }
    }, 25);
    const timer = setTimeout(() => child.kill("SIGKILL"), options.killAfterMs ?? 25_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      resolve({ code, stdout, stderr, children: [...children] });
    });
    child.stdin.end(options.input ?? "");
  });
}

const vllm = (replies: VllmReply[], toolsEnabled = true): Promise<VllmServer> => startModel({ replies, toolsEnabled });

type WireMessage = { role: string; content: unknown; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>; tool_call_id?: string };
const messagesOf = (request: RecordedRequest | undefined): WireMessage[] => (request?.body?.messages ?? []) as WireMessage[];
const toolMessages = (request: RecordedRequest | undefined) => messagesOf(request).filter((m) => m.role === "tool");

function expectNoChildLeft(result: CliResult): void {
  expect(result.children.length).toBeGreaterThan(0);
  for (const pid of result.children) expect(isAlive(pid), `process ${pid} left behind`).toBe(false);
}

describe("toolbridge run (native tool calling)", () => {
  it("answers the date query with the bundled get-date tool", async () => {
    const s = await vllm([{ toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }] }, { text: "今天是 2026 年 1 月 7 日。" }]);
    const result = await runCli(["run", "現在是幾年幾月幾號？", "--base-url", s.url]);
    expect(result.stderr).toContain("get-date");
    expect(result.stdout).toBe("今天是 2026 年 1 月 7 日。\n");
    expect(result.code).toBe(0);
    const [first, second] = s.chatRequests;
    expect(first?.body.model).toBe("Qwen/Qwen3-8B");
    expect(first?.body.tools.map((t: { function: { name: string } }) => t.function.name)).toContain("get-date");
    const call = messagesOf(second).find((m) => m.role === "assistant")?.tool_calls?.[0];
    expect(call?.function).toEqual({ name: "get-date", arguments: '{"format":"date-only"}' });
    const [result0] = toolMessages(second);
    expect(result0?.tool_call_id).toBe(call?.id);
    expect(String(result0?.content)).toMatch(/\d/);
    expectNoChildLeft(result);
  });

  it("passes the timezone the model chose for New York to the tool", async () => {
    const s = await vllm([{ toolCalls: [{ name: "get-date", arguments: { timezone: "America/New_York", format: "time-only" } }] }, { text: "It is 9:30 AM in New York." }]);
    const result = await runCli(["run", "紐約現在幾點？", "--base-url", s.url, "--config", timeOnly]);
    expect(result.stdout).toBe("It is 9:30 AM in New York.\n");
    const tool = s.chatRequests[0]?.body.tools.find((t: { function: { name: string } }) => t.function.name === "get-date");
    expect(tool.function.parameters.properties.timezone.type).toBe("string");
    expect(String(toolMessages(s.chatRequests[1])[0]?.content)).toMatch(/\d{1,2}:\d{2}/);
  });

  it("gives the model an invalid zone back as a tool error, and the model explains", async () => {
    const s = await vllm([{ toolCalls: [{ name: "get-date", arguments: { timezone: "Mars/Olympus_Mons" } }] }, { text: "Mars/Olympus_Mons is not a time zone." }]);
    const result = await runCli(["run", "What time is it on Mars?", "--base-url", s.url, "--config", timeOnly]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Mars/Olympus_Mons is not a time zone.\n");
    expect(result.stderr).toMatch(/✗ get-date .*Unknown timezone "Mars\/Olympus_Mons"/);
    const content = String(toolMessages(s.chatRequests[1])[0]?.content);
    expect(content).toMatch(/^Error: the tool reported a failure\.\nUnknown timezone "Mars\/Olympus_Mons"/);
  });

  it("runs two calls of one reply and sends both results back in order with their ids", async () => {
    const s = await vllm([
      {
        toolCalls: [
          { name: "get-date", arguments: { timezone: "America/New_York", format: "locale" }, id: "chatcmpl-tool-aaaa" },
          { name: "get-date", arguments: { timezone: "Asia/Taipei", format: "locale" }, id: "chatcmpl-tool-bbbb" },
        ],
      },
      { text: "Both times." },
    ]);
    const result = await runCli(["run", "New York and Taipei?", "--base-url", s.url, "--config", timeOnly]);
    expect(result.stdout).toBe("Both times.\n");
    expect(toolMessages(s.chatRequests[1]).map((m) => m.tool_call_id)).toEqual(["chatcmpl-tool-aaaa", "chatcmpl-tool-bbbb"]);
  });

  it("at --max-iterations asks once more without tools and still prints an answer", async () => {
    const s = await vllm([{ toolCalls: [{ name: "get-date", arguments: {} }] }, { text: "Best I can say: it is 2026." }]);
    const result = await runCli(["run", "date?", "--base-url", s.url, "--config", timeOnly, "--max-iterations", "1"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Best I can say: it is 2026.\n");
    expect(result.stderr).toContain("stopped calling tools");
    const last = s.chatRequests[1];
    expect(last?.body.tools).toBeUndefined();
    expect(String(messagesOf(last).at(-1)?.content)).toMatch(/limit of tool calls/);
  });

  it("tells the model an unknown tool's name is wrong and lists the valid ones", async () => {
    const s = await vllm([{ toolCalls: [{ name: "get_time", arguments: {} }] }, { text: "Sorry." }]);
    const result = await runCli(["run", "time?", "--base-url", s.url, "--config", timeOnly]);
    expect(result.code).toBe(0);
    const content = String(toolMessages(s.chatRequests[1])[0]?.content);
    expect(content).toMatch(/^Unknown tool "get_time"\. The available tools are: .*get-date/);
  });

  it("tells the model where its argument JSON broke", async () => {
    const s = await vllm([{ toolCalls: [{ name: "get-date", arguments: '{"timezone": "Asia/Taipei"' }] }, { text: "Retrying failed." }]);
    const result = await runCli(["run", "Taipei?", "--base-url", s.url, "--config", timeOnly]);
    expect(result.code).toBe(0);
    expect(String(toolMessages(s.chatRequests[1])[0]?.content)).toMatch(/^The arguments are not valid JSON: .* at character 26/);
  });

  it("retries a 500 and then answers", async () => {
    const s = await vllm([{ kind: "error", status: 500, message: "engine restarting" }, { text: "Hello." }]);
    const result = await runCli(["run", "hi", "--base-url", s.url, "--config", timeOnly]);
    expect(result.stdout).toBe("Hello.\n");
    expect(result.code).toBe(0);
    expect(s.chatRequests).toHaveLength(2);
  });

  it("prints the whole turn as JSON with --json", async () => {
    const s = await vllm([{ toolCalls: [{ name: "get-date", arguments: { format: "iso" } }] }, { text: "Done." }]);
    const result = await runCli(["run", "date?", "--base-url", s.url, "--config", timeOnly, "--json"]);
    const turn = JSON.parse(result.stdout);
    expect(turn).toMatchObject({ answer: "Done.", model: "Qwen/Qwen3-8B", status: "completed", iterations: 2, limitReached: false });
    expect(turn.toolCalls[0]).toMatchObject({ name: "get-date", arguments: { format: "iso" }, outcome: "ok", isError: false });
    expect(turn.toolCalls[0].result.content[0].type).toBe("text");
    expect(turn.usage.totalTokens).toBeGreaterThan(0);
  });

  it("traces each step with --verbose, as the seed's interaction example does", async () => {
    const s = await vllm([{ toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }] }, { text: "今天是 2026 年 1 月 7 日。" }]);
    const result = await runCli(["run", "現在是幾年幾月幾號？", "--base-url", s.url, "--config", timeOnly, "--verbose"]);
    const lines = result.stderr.split("\n").filter((l) => l.startsWith("[toolbridge]"));
    expect(lines[0]).toMatch(new RegExp(`^\\[toolbridge\\] sending request to ${s.url.replace(/[.]/g, "\\.")} \\(model Qwen/Qwen3-8B, 1 tool\\)$`));
    expect(lines).toContain("[toolbridge] model returned tool_call: get-date");
    expect(lines).toContain('[toolbridge] running tool: get-date({"format":"date-only"})');
    expect(lines.some((l) => /^\[toolbridge\] tool result \(\d+ ms\): \S/.test(l))).toBe(true);
    expect(lines).toContain("[toolbridge] sending the tool results back to the model");
    expect(lines).toContain("[toolbridge] model's final answer: 今天是 2026 年 1 月 7 日。");
  });

  it("traces the URL requests really go to, not the one typed", async () => {
    const s = await vllm([{ text: "Hi." }]);
    const typed = `${new URL(s.url).origin}/`;
    const result = await runCli(["run", "hi", "--base-url", typed, "--config", timeOnly, "--verbose"]);
    expect(result.stderr).toContain(`[toolbridge] sending request to ${new URL(s.url).origin}/v1 (model `);
  });

  it("reports a refused connection in one line and exits non-zero", async () => {
    const port = await freePort();
    const result = await runCli(["run", "hi", "--base-url", `http://127.0.0.1:${port}/v1`, "--model", "m"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^toolbridge: .*127\\.0\\.0\\.1:${port}.*connection refused`));
    expectNoChildLeft(result);
  });

  it("cancels on Ctrl-C mid-stream, exits 130 and leaves no server behind", async () => {
    const s = await vllm([{ text: "word ".repeat(400), chunkDelayMs: 20 }]);
    const result = await runCli(["run", "tell me a long story", "--base-url", s.url, "--config", timeOnly], { interruptWhen: () => s.chatRequests.length > 0 });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain("(cancelled)");
    expect(result.stdout).toBe("");
    expectNoChildLeft(result);
  });

  it("exits 143 when SIGTERM stops it mid-stream, and leaves no server behind", async () => {
    const s = await vllm([{ text: "word ".repeat(400), chunkDelayMs: 20 }]);
    const result = await runCli(["run", "tell me a long story", "--base-url", s.url, "--config", timeOnly], { interruptWhen: () => s.chatRequests.length > 0, signal: "SIGTERM" });
    expect(result.code).toBe(143);
    expect(result.stdout).toBe("");
    expectNoChildLeft(result);
  });
});

describe("toolbridge chat (piped stdin)", () => {
  it("stops every server and exits 143 when SIGTERM arrives mid-answer", async () => {
    const s = await vllm([{ text: "word ".repeat(400), chunkDelayMs: 20 }]);
    const result = await runCli(["chat", "--base-url", s.url, "--config", timeOnly], { input: "tell me a long story\n", interruptWhen: () => s.chatRequests.length > 0, signal: "SIGTERM" });
    expect(result.code).toBe(143);
    expectNoChildLeft(result);
  });

  it("cancels the answer on Ctrl-C and goes on with the next line", async () => {
    const s = await vllm([{ text: "word ".repeat(400), chunkDelayMs: 20 }, { text: "Second answer." }]);
    const result = await runCli(["chat", "--base-url", s.url, "--config", timeOnly], { input: "tell me a long story\nsecond\n", interruptWhen: () => s.chatRequests.length > 0 });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("(cancelled)");
    expect(result.stdout).toContain("Second answer.\n");
    expectNoChildLeft(result);
  });

  it("keeps the first turn when the second asks 'and Taipei?'", async () => {
    const s = await vllm([
      { toolCalls: [{ name: "get-date", arguments: { format: "time-only" } }] },
      { text: "It is 14:30." },
      { toolCalls: [{ name: "get-date", arguments: { format: "time-only", timezone: "Asia/Taipei" } }] },
      { text: "In Taipei it is 22:30." },
    ]);
    const result = await runCli(["chat", "--base-url", s.url, "--config", timeOnly], { input: "現在是幾點？\n那台北呢？\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("It is 14:30.\nIn Taipei it is 22:30.\n");
    const third = messagesOf(s.chatRequests[2]);
    expect(third.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(third[0]?.content).toBe("現在是幾點？");
    expect(third[4]?.content).toBe("那台北呢？");
    const taipeiCall = messagesOf(s.chatRequests[3]).filter((m) => m.role === "assistant").at(-1)?.tool_calls?.[0];
    expect(JSON.parse(taipeiCall?.function.arguments ?? "{}")).toEqual({ format: "time-only", timezone: "Asia/Taipei" });
  });

  it("traces the model switched to with /model", async () => {
    const server = await startModel({ replies: [{ text: "Hello." }], otherModels: ["Qwen/Qwen3-32B"] });
    const result = await runCli(["chat", "--base-url", server.url, "--config", timeOnly, "--verbose"], { input: "/model Qwen/Qwen3-32B\nhi\n" });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^\[toolbridge\] sending request to \S+ \(model Qwen\/Qwen3-32B, 1 tool\)$/m);
  });

  it("goes on after a failed turn and answers slash commands", async () => {
    const s = await vllm([{ kind: "error", status: 400, message: "This model's maximum context length is 10 tokens" }, { text: "Second answer." }]);
    const file = join(home, "saved.jsonl");
    const result = await runCli(["chat", "--base-url", s.url, "--config", timeOnly], { input: `first\nsecond\n/tools\n/servers\n/save ${file}\n/usage\n/exit\nnever sent\n` });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/toolbridge: The conversation is longer than the model's context of 10 tokens; .*said: This model's maximum context length/);
    expect(result.stdout).toMatch(/^ {2}turns {8}2$/m);
    expect(result.stdout).toContain("Second answer.\n");
    expect(result.stdout).toMatch(/get-date\s+time/);
    expect(result.stdout).toMatch(/^NAME\s+TRANSPORT\s+STATUS\s+TOOLS\s+RESOURCES/m);
    expect(result.stdout).toMatch(/^time\s+stdio\s+connected\s+1\s/m);
    expect(result.stdout).toContain(`saved 3 messages to ${file}`);
    expect(s.chatRequests).toHaveLength(2);
  });
});

/** Replies that write calls as `<tool_call>` text, as a model does with tools described in its prompt. */
const textCall = (name: string, args: Record<string, unknown>): VllmReply => ({ text: `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>` });

describe("prompt mode (a vLLM server started without a tool parser)", () => {
  it("switches once, says so, and answers the date query", async () => {
    const s = await vllm([textCall("get-date", { format: "date-only" }), { text: "今天是 2026 年 1 月 7 日。" }], false);
    const result = await runCli(["run", "現在是幾年幾月幾號？", "--base-url", s.url]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("今天是 2026 年 1 月 7 日。\n");
    expect(result.stderr.match(/prompt-based tool calling/g)).toHaveLength(1);
    const [refused, promptMode, withResult] = s.chatRequests;
    expect(refused?.body.tools).toBeDefined();
    expect(promptMode?.body.tools).toBeUndefined();
    expect(String(messagesOf(promptMode)[0]?.content)).toContain("get-date");
    expect(JSON.stringify(messagesOf(withResult))).toContain("<tool_response>");
  });

  it("passes the New York timezone written in text to the tool", async () => {
    const s = await vllm([textCall("get-date", { timezone: "America/New_York", format: "time-only" }), { text: "It is 9:30 AM in New York." }], false);
    const result = await runCli(["run", "紐約現在幾點？", "--base-url", s.url, "--config", timeOnly]);
    expect(result.stdout).toBe("It is 9:30 AM in New York.\n");
    expect(result.stderr).toMatch(/get-date .*America\/New_York/);
    expect(JSON.stringify(messagesOf(s.chatRequests[2]))).toMatch(/<tool_response[^>]*>[^<]*\d{1,2}:\d{2}/);
  });

  it("keeps the conversation across chat turns, switching only once", async () => {
    const s = await vllm(
      [textCall("get-date", { format: "time-only" }), { text: "It is 14:30." }, textCall("get-date", { format: "time-only", timezone: "Asia/Taipei" }), { text: "In Taipei it is 22:30." }],
      false,
    );
    const result = await runCli(["chat", "--base-url", s.url, "--config", timeOnly], { input: "現在是幾點？\n那台北呢？\n" });
    expect(result.stdout).toBe("It is 14:30.\nIn Taipei it is 22:30.\n");
    expect(result.stderr.match(/prompt-based tool calling/g)).toHaveLength(1);
    expect(s.chatRequests).toHaveLength(5);
    const fourth = JSON.stringify(messagesOf(s.chatRequests[3]));
    expect(fourth).toContain("現在是幾點？");
    expect(fourth).toContain("那台北呢？");
  });

  it("gives the model an invalid zone back as a tool error", async () => {
    const s = await vllm([textCall("get-date", { timezone: "Mars/Olympus_Mons" }), { text: "That is not a time zone." }], false);
    const result = await runCli(["run", "Mars time?", "--base-url", s.url, "--config", timeOnly]);
    expect(result.stdout).toBe("That is not a time zone.\n");
    expect(JSON.stringify(messagesOf(s.chatRequests[2]))).toContain('Unknown timezone \\"Mars/Olympus_Mons\\"');
  });
});


// A config file in the seed's own form is accepted as it is.
describe("seed 003's config.json", () => {
  it("is read as it is: vllm section and tools.enabled", async () => {
    const s = await vllm([{ text: "Hi." }]);
    const file = join(home, "seed-config.json");
    writeFileSync(file, JSON.stringify({ vllm: { baseURL: s.url, model: "Qwen/Qwen3-8B", systemPrompt: "你是一個有用的助手，可以使用工具來回答問題。" }, tools: { enabled: ["get-date"] } }));
    const result = await runCli(["run", "hi", "--config", file]);
    expect(result.stdout).toBe("Hi.\n");
    const body = s.chatRequests[0]?.body;
    expect(body.messages[0]).toEqual({ role: "system", content: "你是一個有用的助手，可以使用工具來回答問題。" });
    expect(body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(["get-date"]);
  });
});

describe("tool approval (server-filesystem's write_file, no terminal to ask)", () => {
  const FS_SERVER = join(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");

  function filesystemConfig(dir: string, entry: Record<string, unknown> = {}): string {
    const file = join(dir, "fs.json");
    // server-filesystem serves the client's roots in place of the directories in its arguments.
    writeFileSync(file, JSON.stringify({ mcpServers: { filesystem: { command: process.execPath, args: [FS_SERVER, dir], roots: [dir], ...entry } } }));
    return file;
  }

  function workDir(): string {
    const dir = mkdtempSync(join(tmpdir(), "toolbridge-approval-"));
    writeFileSync(join(dir, "notes.txt"), "keep me");
    return dir;
  }

  const overwrite = (dir: string) => ({ toolCalls: [{ name: "write_file", arguments: { path: join(dir, "notes.txt"), content: "overwritten" } }] });

  it("refuses write_file, tells the model, and names the flag that would allow it", async () => {
    const dir = workDir();
    try {
      const s = await vllm([overwrite(dir), { text: "I was not allowed to write the file." }]);
      const result = await runCli(["run", "overwrite notes.txt", "--base-url", s.url, "--config", filesystemConfig(dir)]);
      expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("keep me");
      expect(String(toolMessages(s.chatRequests[1])[0]?.content)).toMatch(/needs the user's approval/);
      expect(result.stderr).toMatch(/write_file was not run: .*--approve all/);
      expect(result.stdout).toBe("I was not allowed to write the file.\n");
      expectNoChildLeft(result);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs write_file with --approve all", async () => {
    const dir = workDir();
    try {
      const s = await vllm([overwrite(dir), { text: "Done." }]);
      const result = await runCli(["run", "overwrite notes.txt", "--base-url", s.url, "--config", filesystemConfig(dir), "--approve", "all"]);
      expect(result.code).toBe(0);
      expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("overwritten");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs read-only tools with --approve readonly, and still refuses write_file", async () => {
    const dir = workDir();
    try {
      const s = await vllm([{ toolCalls: [{ name: "read_text_file", arguments: { path: join(dir, "notes.txt") } }] }, overwrite(dir), { text: "Read it; could not write." }]);
      const result = await runCli(["run", "read then overwrite", "--base-url", s.url, "--config", filesystemConfig(dir), "--approve", "readonly"]);
      expect(String(toolMessages(s.chatRequests[1])[0]?.content)).toContain("keep me");
      expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("keep me");
      expect(result.stderr).toMatch(/write_file was not run/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs the tools of a server marked trust: true, and those listed in autoApprove", async () => {
    const dir = workDir();
    try {
      const s = await vllm([overwrite(dir), { text: "Done." }]);
      await runCli(["run", "overwrite", "--base-url", s.url, "--config", filesystemConfig(dir, { autoApprove: ["write_file"] })]);
      expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("overwritten");
      await s.close();
      writeFileSync(join(dir, "notes.txt"), "keep me");
      const t = await vllm([overwrite(dir), { text: "Done." }]);
      await runCli(["run", "overwrite", "--base-url", t.url, "--config", filesystemConfig(dir, { trust: true })]);
      expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("overwritten");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses an unknown --approve mode in one line, exit 2", async () => {
    const result = await runCli(["run", "hi", "--approve", "sometimes", "--base-url", "http://127.0.0.1:9/v1"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--approve: "sometimes" is not one of ask, readonly, all/);
  });
});
/** Each family's model, how it writes a get-date call, and a marker of its own prompt format and result wrapper. */
const FAMILY_RUNS: Array<{ model: string; call: string; asks: string; results: string }> = [
  {
    model: "meta-llama/Llama-3.3-70B-Instruct",
    call: '{"name": "get-date", "parameters": {"format": "date-only"}}',
    asks: '"parameters": dictionary',
    results: "[ipython] get-date",
  },
  {
    model: "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
    call: '[TOOL_CALLS]get-date[ARGS]{"format": "date-only"}',
    asks: "[TOOL_CALLS], the tool's name, [ARGS]",
    results: "[TOOL_RESULTS]",
  },
  {
    model: "deepseek-ai/DeepSeek-V3-0324",
    call: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get-date\n```json\n{"format": "date-only"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    asks: "<｜tool▁call▁begin｜>function<｜tool▁sep｜>",
    results: "<｜tool▁output▁begin｜>get-date",
  },
  {
    model: "zai-org/GLM-4.6",
    call: "<tool_call>get-date\n<arg_key>format</arg_key>\n<arg_value>date-only</arg_value>\n</tool_call>",
    asks: "<arg_key>name</arg_key>",
    results: "<tool_response",
  },
  {
    model: "moonshotai/Kimi-K2-Instruct",
    call: '<|tool_calls_section_begin|><|tool_call_begin|>functions.get-date:0<|tool_call_argument_begin|>{"format": "date-only"}<|tool_call_end|><|tool_calls_section_end|>',
    asks: "<|tool_call_argument_begin|>",
    results: "## Return of",
  },
  {
    model: "openai/gpt-oss-20b",
    call: '<|channel|>analysis<|message|>Need the date.<|end|><|start|>assistant<|channel|>commentary to=functions.get-date <|constrain|>json<|message|>{"format": "date-only"}<|call|>',
    asks: "to=functions.NAME",
    results: "<|start|>functions.get-date to=assistant",
  },
  {
    model: "ibm-granite/granite-3.3-8b-instruct",
    call: '<|tool_call|>[{"name": "get-date", "arguments": {"format": "date-only"}}]',
    asks: "<|tool_call|> followed by a JSON list",
    results: "<tool_response",
  },
  {
    model: "meta-llama/Llama-4-Scout-17B-16E-Instruct",
    call: "<|python_start|>[get-date(format='date-only')]<|python_end|>",
    asks: '"parameters": dictionary',
    results: "[ipython] get-date",
  },
];

describe("prompt mode per model family (a vLLM server started without a tool parser)", () => {
  it.each(FAMILY_RUNS.map((f) => [f.model, f] as const))("%s: asks in its format, reads its call, sends the result back its way", async (_model, family) => {
    const s = await startModel({ replies: [{ text: family.call }, { text: "Today is 7 January 2026." }], toolsEnabled: false, model: family.model });
    const result = await runCli(["run", "What is the date?", "--base-url", s.url, "--config", timeOnly, "--model", family.model]);
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.stdout).toBe("Today is 7 January 2026.\n");
    const [, promptMode, withResult] = s.chatRequests;
    expect(String(messagesOf(promptMode)[0]?.content)).toContain(family.asks);
    expect(JSON.stringify(messagesOf(withResult))).toContain(JSON.stringify(family.results).slice(1, -1));
    // The bundled tool really ran: its date (11/22/2026 or 2026-11-22, by locale) follows the family's result marker.
    expect(JSON.stringify(messagesOf(withResult))).toMatch(/\d{1,4}[-/]\d{1,2}[-/]\d{2,4}/);
  });
});

describe("tool search with 300 tools configured", () => {
  it("offers search_tools and few others, loads what the model found, runs it and answers", async () => {
    const { catalogNames } = await import("../fixtures/llm/catalogs.js");
    const catalogServer = join(import.meta.dirname, "../fixtures/servers/catalog-server.mjs");
    const mcpServers: Record<string, unknown> = {};
    // 307 tools from 20 recorded servers. Twenty servers start at once: on a loaded machine that takes longer than one server's default startup timeout.
    for (const name of catalogNames()) mcpServers[name] = { command: process.execPath, args: [catalogServer, name], startupTimeoutMs: 90_000 };
    const config = join(home, "many-tools.json");
    writeFileSync(config, JSON.stringify({ mcpServers }));
    const s = await vllm([
      { toolCalls: [{ name: "search_tools", arguments: { query: "scale the web deployment to five replicas" } }] },
      { toolCalls: [{ name: "kubectl_scale", arguments: { name: "web", replicas: 5, resourceType: "deployment" } }] },
      { text: "The web deployment now runs five replicas." },
    ]);
    const result = await runCli(["run", "Run the web deployment with five replicas", "--base-url", s.url, "--config", config, "--model", "Qwen/Qwen3-8B", "--approve", "all"], {
      killAfterMs: 150_000,
    });
    expect(result.stderr, result.stderr).not.toMatch(/failed|timed out/i);
    expect(result.stdout, result.stderr).toBe("The web deployment now runs five replicas.\n");
    const [first, second, third] = s.chatRequests;
    const names = (r: RecordedRequest | undefined): string[] => ((r?.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(names(first)).toEqual(["search_tools"]);
    expect(names(second)).toContain("kubectl_scale");
    expect(names(second).length).toBeLessThanOrEqual(6);
    expect(names(third)).toContain("kubectl_scale");
    const results = toolMessages(third).map((m) => String(m.content));
    expect(results[0]).toContain("- kubectl_scale:");
    expect(results[1]).toContain('kubernetes:kubectl_scale {"name":"web","replicas":5,"resourceType":"deployment"}');
  }, 180_000);
});
