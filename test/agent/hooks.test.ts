import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { Hooks, MAX_HOOK_OUTPUT_BYTES, type HooksConfig } from "../../src/agent/hooks.js";
import type { ToolCallingMiddlewares } from "../../src/agent/tool-mode.js";
import { hookEnvironment } from "../../src/host/session-hooks.js";
import { FakeHost, FakeModel, allowAll, calls, text, textResult } from "./fakes.js";

const identity: ToolCallingMiddlewares = { prompt: (m) => m, textFallback: (m) => m };
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A real shell script in a fresh directory; returns the command that runs it. */
function script(body: string): { command: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "toolbridge-hook-"));
  dirs.push(dir);
  const file = join(dir, "hook.sh");
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o700);
  return { command: file, dir };
}

function hooks(config: HooksConfig, cwd = tmpdir()): Hooks {
  return new Hooks({ config, cwd, sessionId: "s-1", env: hookEnvironment({ PATH: process.env.PATH }, cwd) });
}

function host(): FakeHost {
  return new FakeHost({
    fs__write: { schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false }, run: (args) => textResult(`wrote ${String(args.path)}`) },
  });
}

async function turn(config: HooksConfig, replies = [calls(["c1", "fs__write", '{"path":"a.txt"}']), text("done")]) {
  const tools = host();
  const model = new FakeModel(replies);
  const events: AgentEvent[] = [];
  const agent = new Agent({ model, tools, approval: allowAll, toolCalling: identity, toolSearch: { mode: "off" }, hooks: hooks(config) });
  const result = await agent.send("write it", { onEvent: (event) => events.push(event) });
  const notices = events.flatMap((event) => (event.type === "notice" && event.code === "hook" ? [event.message] : []));
  return { tools, model, result, notices };
}

const pre = (command: string, extra: { timeout?: number; matcher?: string } = {}): HooksConfig => ({
  PreToolUse: [{ matcher: extra.matcher ?? "fs__.*", hooks: [{ type: "command", command, ...(extra.timeout ? { timeout: extra.timeout } : {}) }] }],
});

describe("hooks", () => {
  it("gives a PreToolUse hook the call as JSON on stdin, and runs the tool when it exits 0", async () => {
    const { command, dir } = script(`cat > "$(dirname "$0")/input.json"`);
    const { tools } = await turn(pre(command));
    expect(tools.called.map((call) => call.args)).toEqual([{ path: "a.txt" }]);
    const input = JSON.parse(readFileSync(join(dir, "input.json"), "utf8"));
    expect(input).toMatchObject({ session_id: "s-1", hook_event_name: "PreToolUse", tool_name: "fs__write", tool_input: { path: "a.txt" }, tool_use_id: "c1" });
  });

  it("denies a call when a PreToolUse hook exits 2, with its stderr as the reason the model reads", async () => {
    const { command } = script(`echo "no writes on Fridays" >&2; exit 2`);
    const { tools, result } = await turn(pre(command));
    expect(tools.called).toEqual([]);
    expect(result.toolCalls[0]?.outcome).toBe("denied");
    expect(result.toolCalls[0]?.content).toContain("no writes on Fridays");
  });

  it("denies a call when a PreToolUse hook answers permissionDecision deny in JSON", async () => {
    const { command } = script(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"path is protected"}}'`);
    const { tools, result } = await turn(pre(command));
    expect(tools.called).toEqual([]);
    expect(result.toolCalls[0]?.content).toContain("path is protected");
  });

  it("runs only the hooks whose matcher matches the tool's name", async () => {
    const { command } = script(`exit 2`);
    const { tools } = await turn(pre(command, { matcher: "github__.*" }));
    expect(tools.called).toHaveLength(1);
  });

  it("runs the tool with a hook's updatedInput, checked against the tool's schema again", async () => {
    const changed = script(`echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"path":"safe/a.txt"}}}'`);
    const first = await turn(pre(changed.command));
    expect(first.tools.called.map((call) => call.args)).toEqual([{ path: "safe/a.txt" }]);

    const invalid = script(`echo '{"hookSpecificOutput":{"updatedInput":{"path":"a.txt","mode":"777"}}}'`);
    const second = await turn(pre(invalid.command));
    expect(second.tools.called).toEqual([]);
    expect(second.result.toolCalls[0]?.isError).toBe(true);
  });

  it("lets a hook's permissionDecision allow run a call the policy would ask about, but not one a deny rule refuses", async () => {
    const { command } = script(`echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`);
    const { ApprovalPolicy } = await import("../../src/agent/approval.js");
    for (const [rules, runs] of [[{}, 1], [{ deny: ["fs__*"] }, 0]] as const) {
      const tools = host();
      const agent = new Agent({
        model: new FakeModel([calls(["c1", "fs__write", '{"path":"a.txt"}']), text("done")]),
        tools,
        approval: { policy: new ApprovalPolicy({ rules }) },
        toolCalling: identity,
        toolSearch: { mode: "off" },
        hooks: hooks(pre(command)),
      });
      await agent.send("write it");
      expect(tools.called).toHaveLength(runs);
    }
  });

  it("adds a PostToolUse hook's additionalContext to what the model reads of the result", async () => {
    const { command } = script(`echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"remember to run the linter"}}'`);
    const { model } = await turn({ PostToolUse: [{ hooks: [{ type: "command", command }] }] });
    const toolMessage = model.requests[1]?.messages.find((message) => message.role === "tool");
    expect(toolMessage?.content).toContain("wrote a.txt");
    expect(toolMessage?.content).toContain("remember to run the linter");
  });

  it("adds UserPromptSubmit and SessionStart output to the prompt, and blocks a prompt on exit 2", async () => {
    const context = script(`echo "today is a holiday"`);
    const start = script(`echo "project: toolbridge"`);
    const added = await turn({ UserPromptSubmit: [{ hooks: [{ type: "command", command: context.command }] }], SessionStart: [{ hooks: [{ type: "command", command: start.command }] }] }, [text("ok")]);
    const user = added.model.requests[0]?.messages.find((message) => message.role === "user");
    expect(user?.content).toContain("today is a holiday");
    expect(user?.content).toContain("project: toolbridge");

    const blocking = script(`echo "no secrets in prompts" >&2; exit 2`);
    const blocked = await turn({ UserPromptSubmit: [{ hooks: [{ type: "command", command: blocking.command }] }] }, []);
    expect(blocked.model.requests).toEqual([]);
    expect(blocked.result.error?.message).toContain("no secrets in prompts");
  });

  it("keeps the turn going when a Stop hook blocks, once it says stop_hook_active it lets it end", async () => {
    const { command } = script(`if grep -q '"stop_hook_active":true'; then exit 0; fi; echo '{"decision":"block","reason":"run the tests first"}'`);
    const { model, result } = await turn({ Stop: [{ hooks: [{ type: "command", command }] }] }, [text("done?"), text("tests pass")]);
    expect(model.requests).toHaveLength(2);
    expect(JSON.stringify(model.requests[1]?.messages)).toContain("run the tests first");
    expect(result.text).toBe("tests pass");
  });

  it("kills a hook that hangs at its timeout, says so in one line, and goes on", async () => {
    const { command } = script(`sleep 300`);
    const { tools, notices } = await turn(pre(command, { timeout: 1 }));
    expect(tools.called).toHaveLength(1);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/hook ".*hook\.sh" \(PreToolUse\) was killed after its timeout of 1 s/);
    expect(notices[0]).not.toContain("\n");
  });

  it("stops a hook that prints 10 MB past the output bound, in one line", async () => {
    const { command } = script(`head -c 10000000 /dev/zero | tr '\\0' x`);
    const { tools, notices } = await turn(pre(command));
    expect(tools.called).toHaveLength(1);
    expect(notices).toEqual([expect.stringContaining(`printed more than ${MAX_HOOK_OUTPUT_BYTES} bytes on stdout and was stopped`)]);
  });

  it("runs a hook with only the environment it is given", async () => {
    const { command, dir } = script(`env > "$(dirname "$0")/env.txt"`);
    process.env.TOOLBRIDGE_TEST_SECRET = "s3cret";
    try {
      await turn(pre(command));
    } finally {
      delete process.env.TOOLBRIDGE_TEST_SECRET;
    }
    const env = readFileSync(join(dir, "env.txt"), "utf8");
    expect(env).not.toContain("s3cret");
    expect(env).toContain("TOOLBRIDGE_PROJECT_DIR=");
  });
});
