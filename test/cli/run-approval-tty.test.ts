import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, cliEnv } from "../support/cli.js";
import { bundledServer, cliTestSetup, writeConfig } from "../support/cli-setup.js";

/**
 * `run` on a real terminal (a pseudo-terminal from util-linux's `script`): a tool the
 * policy does not allow is asked about on stderr, and the answer decides.
 */

let dir: string;
let untrusted: string;
let files: string;
const TOY = join(import.meta.dirname, "../fixtures/servers/toy-server.mjs");
const { startModel } = cliTestSetup("toolbridge-run-tty-", (home) => {
  dir = home;
  untrusted = writeConfig(home, "untrusted.json", { time: bundledServer("time", false) });
  files = writeConfig(home, "files.json", { files: { command: process.execPath, args: [TOY, "--name", "files", "--tools", "edit_file,write_file"] } });
});

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/** Runs `toolbridge ARGS` on a pseudo-terminal, typing each answer when a question shows. */
function onTerminal(args: string[], answers: string[]): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, CLI, ...args].map(quote).join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qefc", command, "/dev/null"], { cwd: dir, env: cliEnv(dir), stdio: ["pipe", "pipe", "pipe"] });
    let screen = "";
    let asked = 0;
    child.stdout.on("data", (d: Buffer) => {
      screen += d.toString();
      const questions = screen.match(/\[y\/a\/s\/n\] |\(Enter for none\): /g)?.length ?? 0;
      for (; asked < questions && answers.length > 0; asked++) child.stdin.write(`${answers.shift()}\r`);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, screen });
    });
  });
}

describe("run asks on a terminal", () => {
  it("runs the tool when allowed once", async () => {
    const model = await startModel({ replies: [{ toolCalls: [{ name: "get-date", arguments: { format: "iso" } }] }, { text: "Done." }] });
    const run = await onTerminal(["run", "date?", "--base-url", model.url, "-c", untrusted], ["y"]);
    expect(run.screen).toContain("? run get-date (server time, read-only)");
    expect(run.screen).toContain("Done.");
    expect(run.code).toBe(0);
    const result = (model.chatRequests[1]?.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === "tool");
    expect(result?.content).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it("denies with a reason, which the model reads", async () => {
    const model = await startModel({ replies: [{ toolCalls: [{ name: "get-date", arguments: {} }] }, { text: "OK, no date." }] });
    const run = await onTerminal(["run", "date?", "--base-url", model.url, "-c", untrusted], ["n", "not now"]);
    expect(run.code).toBe(0);
    const result = (model.chatRequests[1]?.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === "tool");
    expect(result?.content).toContain('the user denied "get-date". The user said: not now');
  });

  it("asks about two calls of one reply one at a time; 'a' on the first covers the same tool", async () => {
    const model = await startModel({
      replies: [{ toolCalls: [{ name: "get-date", arguments: { format: "iso" } }, { name: "get-date", arguments: { format: "date-only" } }] }, { text: "Two dates." }],
    });
    const run = await onTerminal(["run", "dates?", "--base-url", model.url, "-c", untrusted], ["a", "n"]);
    expect(run.code).toBe(0);
    expect(run.screen.match(/\? run get-date/g)).toHaveLength(1);
    const results = (model.chatRequests[1]?.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === "tool");
    expect(results).toHaveLength(2);
    expect(results[0]?.content).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(results[1]?.content).not.toContain("Not run");
  });

  it("shows an edit of a file as a diff of its lines, before the question", async () => {
    const edits = [{ oldText: "const a = 1;\nconst b = 2;\nconst c = 3;", newText: "const a = 1;\nconst b = 20;\nconst c = 3;" }];
    const model = await startModel({ replies: [{ toolCalls: [{ name: "edit_file", arguments: { path: "/src/x.ts", edits } }] }, { text: "Left it." }] });
    const run = await onTerminal(["run", "edit", "--base-url", model.url, "-c", files], ["n", ""]);
    expect(run.code).toBe(0);
    const lines = run.screen.split(/\r?\n/);
    const at = lines.findIndex((line) => line.includes("edits: 1 line out, 1 in"));
    expect(at).toBeGreaterThan(-1);
    expect(lines.slice(0, at).join("\n")).toMatch(/\? run edit_file \(server files\)\n {2}asked because [^\n]*\n {2}path: "\/src\/x\.ts"$/);
    expect(lines.slice(at + 1, at + 5)).toEqual(["      const a = 1;", "    - const b = 2;", "    + const b = 20;", "      const c = 3;"]);
    expect(run.screen.indexOf("const c = 3;")).toBeLessThan(run.screen.indexOf("[y/a/s/n] "));
  });

  it("shows a long multi-line argument whole, every line, cleaned of terminal sequences, the question last", async () => {
    const content = Array.from({ length: 61 }, (_, i) => `line ${i + 1}${i === 30 ? "\x1b]0;pwned\x07" : ""}`).join("\n");
    const model = await startModel({ replies: [{ toolCalls: [{ name: "write_file", arguments: { path: "/notes.txt", content } }] }, { text: "Written." }] });
    const run = await onTerminal(["run", "write", "--base-url", model.url, "-c", files], ["y"]);
    expect(run.code).toBe(0);
    const lines = run.screen.split(/\r?\n/);
    const at = lines.findIndex((line) => line.includes("content: (61 lines)"));
    expect(at).toBeGreaterThan(-1);
    const shown = lines.slice(at + 1, at + 62);
    expect(shown[0]).toBe("    │ line 1");
    // The title-setting sequence is shown as its characters, never sent to the terminal.
    expect(shown[30]).toBe("    │ line 31\\x1b]0;pwned\\x07");
    expect(shown[60]).toBe("    │ line 61");
    expect(run.screen).not.toContain("\x1b]0;");
    expect(lines[at + 62]).toContain("[y/a/s/n] ");
  });
});
