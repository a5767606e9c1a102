import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { bundledServer, cliTestSetup, writeConfig } from "../support/cli-setup.js";
import type { RecordedRequest, VllmReply, VllmServer } from "../support/vllm-server.js";

/** `toolbridge run` in pipes: streaming, piped context, output formats, retries shown. */

let dir: string;
let timeOnly: string;
const { startModel } = cliTestSetup("toolbridge-run-pipes-", (home) => {
  dir = home;
  timeOnly = writeConfig(home, "time-only.json", { time: bundledServer("time") });
});

const scripted = (replies: VllmReply[]): Promise<VllmServer> => startModel({ replies });

const lastUserText = (request: RecordedRequest | undefined): string =>
  String(((request?.body?.messages ?? []) as Array<{ role: string; content: unknown }>).filter((m) => m.role === "user").at(-1)?.content);

describe("run streams its answer", () => {
  it("writes the answer to stdout while it is still being written, and Ctrl-C keeps what was printed", async () => {
    // The server sends the first words, then never finishes: only streaming can show them.
    const s = await scripted([{ text: "first words of a long answer that never ends", stallAfterChunks: 4 }]);
    const run = await runCli(["run", "talk", "--base-url", s.url, "-c", timeOnly], { cwd: dir, interruptWhen: ({ stdout }) => stdout.length > 0 });
    expect(run.code).toBe(130);
    expect(run.stdout.length).toBeGreaterThan(0);
    expect("first words of a long answer that never ends").toContain(run.stdout.trimEnd());
    expect(run.stdout.endsWith("\n")).toBe(true);
    expect(run.stderr).toContain("(cancelled)");
  });
});

describe("run reads piped stdin as context", () => {
  it("adds what was piped to the question", async () => {
    const s = await scripted([{ text: "Looks fine." }]);
    const diff = "diff --git a/x b/x\n+added line\n";
    const run = await runCli(["run", "review this", "--base-url", s.url, "-c", timeOnly], { cwd: dir, input: diff });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Looks fine.\n");
    expect(lastUserText(s.chatRequests[0])).toBe("review this\n\ndiff --git a/x b/x\n+added line");
  });

  it("takes the piped text alone as the question when no prompt is given", async () => {
    const s = await scripted([{ text: "4" }]);
    const run = await runCli(["run", "--base-url", s.url, "-c", timeOnly], { cwd: dir, input: "what is 2+2?\n" });
    expect(run.code).toBe(0);
    expect(lastUserText(s.chatRequests[0])).toBe("what is 2+2?");
  });

  it("refuses more than 1 MiB of piped text in one line, exit 2, without asking the model", async () => {
    const s = await scripted([{ text: "never" }]);
    const run = await runCli(["run", "review", "--base-url", s.url, "-c", timeOnly], { cwd: dir, input: "x".repeat(1024 * 1024 + 1) });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^toolbridge: stdin: more than 1 MiB piped in/)]);
    expect(s.chatRequests).toHaveLength(0);
  });

  it("with neither a prompt nor piped text, says what is missing, exit 2", async () => {
    const run = await runCli(["run", "--base-url", "http://127.0.0.1:9/v1", "-c", timeOnly], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^toolbridge: run needs a prompt/);
  });
});

describe("run --output-format", () => {
  it("stream-json: one JSON event per line, in the shape claude -p gives", async () => {
    const s = await scripted([
      { text: "Checking.", toolCalls: [{ name: "get-date", arguments: { format: "iso" }, id: "call-1" }] },
      { text: "It is 2026." },
    ]);
    const run = await runCli(["run", "date?", "--base-url", s.url, "-c", timeOnly, "--output-format", "stream-json"], { cwd: dir });
    expect(run.code).toBe(0);
    const events = run.stdout.trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(events[0]).toMatchObject({ type: "system", subtype: "init", model: "Qwen/Qwen3-8B", tools: ["get-date"], mcp_servers: [{ name: "time", status: "connected" }] });
    const deltas = events.filter((e) => e.type === "stream_event").map((e) => e.event.delta.text).join("");
    expect(deltas).toBe("Checking.It is 2026.");
    const assistants = events.filter((e) => e.type === "assistant");
    expect(assistants[0].message.content).toEqual([
      { type: "text", text: "Checking." },
      { type: "tool_use", id: "call-1", name: "get-date", input: { format: "iso" } },
    ]);
    const toolResult = events.find((e) => e.type === "user").message.content[0];
    expect(toolResult).toMatchObject({ type: "tool_result", tool_use_id: "call-1", is_error: false });
    expect(String(toolResult.content)).toMatch(/^\d{4}-/);
    expect(assistants[1].message.content).toEqual([{ type: "text", text: "It is 2026." }]);
    expect(events.at(-1)).toMatchObject({ type: "result", subtype: "success", is_error: false, result: "It is 2026.", num_turns: 2 });
    // The user's own prompt is not echoed back.
    expect(events.filter((e) => e.type === "user")).toHaveLength(1);
  });

  it("json is what --json prints; an unknown format is a usage error", async () => {
    const s = await scripted([{ text: "Hi." }]);
    const run = await runCli(["run", "hi", "--base-url", s.url, "-c", timeOnly, "--output-format", "json"], { cwd: dir });
    expect(JSON.parse(run.stdout)).toMatchObject({ answer: "Hi.", status: "completed" });
    const bad = await runCli(["run", "hi", "--base-url", s.url, "-c", timeOnly, "--output-format", "yaml"], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('toolbridge: --output-format: "yaml" is not one of text, json, stream-json\n');
  });
});

describe("run shows retries", () => {
  it("says 'retrying (1/2) after HTTP 503' before answering", async () => {
    const s = await scripted([{ kind: "error", status: 503, message: "busy", headers: { "retry-after": "0" } }, { text: "Hello." }]);
    const run = await runCli(["run", "hi", "--base-url", s.url, "-c", timeOnly], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Hello.\n");
    expect(run.stderr).toContain("toolbridge: retrying (1/2) after HTTP 503\n");
  });

  it("as a notice line in stream-json", async () => {
    const s = await scripted([{ kind: "error", status: 503, message: "busy", headers: { "retry-after": "0" } }, { text: "Hello." }]);
    const run = await runCli(["run", "hi", "--base-url", s.url, "-c", timeOnly, "--output-format", "stream-json"], { cwd: dir });
    const notices = run.stdout.trimEnd().split("\n").map((line) => JSON.parse(line)).filter((e) => e.subtype === "notice");
    expect(notices).toEqual([{ type: "system", subtype: "notice", code: "retry", message: "retrying (1/2) after HTTP 503" }]);
  });
});
