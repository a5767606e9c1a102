import { PassThrough } from "node:stream";
import picocolors from "picocolors";
import { describe, expect, it } from "vitest";
import type { ToolApprovalRequest } from "../../src/agent/approval.js";
import { terminalApproval } from "../../src/cli/approval-prompt.js";
import { MAX_ARGUMENT_LINES } from "../../src/cli/ui/argument-lines.js";
import type { HubTool } from "../../src/mcp/types.js";

/** `run`'s question on the terminal: allow once, for the session, or deny with a reason. */

const writeFile: HubTool = {
  name: "write_file",
  originalName: "write_file",
  server: "filesystem",
  inputSchema: { type: "object" },
  annotations: { destructiveHint: true },
} as HubTool;

function request(args: Record<string, unknown> = { path: "/tmp/x" }): ToolApprovalRequest {
  return { tool: writeFile, arguments: args, callId: "call-1" };
}

/** A fake terminal: what is typed goes in once the question is seen. */
function terminal(...answers: string[]) {
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
  let shown = "";
  output.on("data", (d: Buffer) => {
    shown += d.toString();
    if (/\[y\/a\/s\/n\] $|\(Enter for none\): $/.test(shown) && answers.length > 0) input.write(`${answers.shift()}\r`);
  });
  return { input, output, shown: () => shown };
}

const colors = picocolors.createColors(false);

describe("terminalApproval", () => {
  it("allows once, or for the session", async () => {
    const once = terminal("y");
    expect(await terminalApproval({ ...once, colors })(request(), undefined)).toEqual({ decision: "allow-once" });
    expect(once.shown()).toContain("run write_file (server filesystem, destructive)");
    const always = terminal("a");
    expect(await terminalApproval({ ...always, colors })(request(), undefined)).toEqual({ decision: "allow-session" });
    const server = terminal("s");
    expect(await terminalApproval({ ...server, colors })(request(), undefined)).toEqual({ decision: "allow-server" });
    expect(server.shown()).toContain("s every tool of filesystem (this session)");
  });

  it("denies with the reason typed, kept as typed", async () => {
    const t = terminal("n", "Not in /tmp, Please");
    expect(await terminalApproval({ ...t, colors })(request(), undefined)).toEqual({ decision: "deny", reason: "Not in /tmp, Please" });
  });

  it("denies on an empty answer, and asks again after a word it does not know", async () => {
    const t = terminal("maybe", "", "");
    expect(await terminalApproval({ ...t, colors })(request(), undefined)).toEqual({ decision: "deny" });
    expect(t.shown().match(/\[y\/a\/s\/n\]/g)).toHaveLength(2);
  });

  it("shows arguments and names cleaned of terminal controls", async () => {
    const t = terminal("n", "");
    await terminalApproval({ ...t, colors })(request({ path: "\x1b]2;PWNED\x07/etc/passwd" }), undefined);
    expect(t.shown()).not.toContain("\x1b]2");
    expect(t.shown()).toContain("/etc/passwd");
  });

  it("colours an edit's removed lines red and its added lines green when the stream has colours", async () => {
    const t = terminal("y");
    const edit = { oldText: "a\nb", newText: "a\nc" };
    await terminalApproval({ ...t, colors: picocolors.createColors(true) })(request({ path: "/x", edits: [edit] }), undefined);
    expect(t.shown()).toContain(`  ${picocolors.createColors(true).red("  - b")}\n`);
    expect(t.shown()).toContain(`  ${picocolors.createColors(true).green("  + c")}\n`);
  });

  it("offers only to deny arguments too long to review", async () => {
    const t = terminal("", "");
    const content = Array.from({ length: MAX_ARGUMENT_LINES + 1 }, (_, i) => `line ${i}`).join("\n");
    expect(await terminalApproval({ ...t, colors })(request({ content }), undefined)).toEqual({ decision: "deny" });
    expect(t.shown()).not.toContain("[y/a/s/n]");
    expect(t.shown()).toContain("These arguments are too long to review here; they can only be denied.");
  });

  it("asks about concurrent calls one at a time", async () => {
    const t = terminal("y", "a");
    const ask = terminalApproval({ ...t, colors });
    const [first, second] = await Promise.all([ask(request(), undefined), ask(request(), undefined)]);
    expect([first, second]).toEqual([{ decision: "allow-once" }, { decision: "allow-session" }]);
  });

  it("gives up when the turn is cancelled", async () => {
    const t = terminal();
    const controller = new AbortController();
    const answer = terminalApproval({ ...t, colors })(request(), controller.signal);
    controller.abort(new Error("cancelled"));
    await expect(answer).rejects.toThrow("cancelled");
  });
});
