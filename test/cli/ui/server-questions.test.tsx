import type { ElicitRequestFormParams } from "@modelcontextprotocol/server";
import { render } from "ink-testing-library";
import picocolors from "picocolors";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalPolicy } from "../../../src/agent/approval.js";
import { createSamplingHandler } from "../../../src/agent/sampling.js";
import type { AgentSession } from "../../../src/cli/chat/session.js";
import { ChatApp } from "../../../src/cli/ui/ChatApp.js";
import { ChatController } from "../../../src/cli/ui/chat-controller.js";
import { InputHistory } from "../../../src/cli/ui/history.js";
import { ServerQuestions } from "../../../src/cli/ui/server-questions.js";
import { ServerQuestionView } from "../../../src/cli/ui/ServerQuestionView.js";
import type { ChatModel } from "../../../src/llm/types.js";
import type { HubTool } from "../../../src/mcp/types.js";

const form: ElicitRequestFormParams = {
  message: "Who are you?\x1b]2;PWNED\x07",
  requestedSchema: { type: "object", properties: { name: { type: "string", title: "Name" }, ok: { type: "boolean", title: "Agree" } }, required: ["name"] },
};
const sampling = { server: "srv", systemPrompt: "Be brief.", messages: ["user: hello \x1b[8mhidden"], maxTokens: 50, tools: ["lookup"], model: "m1" };
const url = { mode: "url" as const, message: "Sign in", url: "https://example.com/sign", elicitationId: "e1" };
const enter = { kind: "enter", shift: false } as const;

describe("the question queue", () => {
  it("shows one question at a time, in the order they came, with the count waiting", async () => {
    const q = new ServerQuestions();
    const first = q.elicitUrl(url, "a");
    const second = q.approveSampling(sampling, undefined);
    expect(q.getState().current?.kind).toBe("url");
    expect(q.getState().waiting).toBe(1);
    q.key({ kind: "text", text: "n" });
    expect(await first).toEqual({ action: "decline" });
    expect(q.getState()).toMatchObject({ current: { kind: "sampling" }, waiting: 0 });
    q.key({ kind: "text", text: "a" });
    expect(await second).toEqual({ decision: "allow-session" });
    expect(q.key({ kind: "text", text: "x" })).toBe(false);
  });

  it("answers a server's sampling questions still waiting by 'always for this server' at once, and only that server's", async () => {
    const q = new ServerQuestions();
    const sampled: string[] = [];
    // The model that answers: it notes each request it gets.
    const model: ChatModel = {
      provider: "test",
      modelId: "m1",
      async *stream(request) {
        sampled.push(String(request.messages.at(-1)?.content));
        yield { type: "text-delta", text: "ok" };
      },
    };
    const sample = createSamplingHandler({ approval: { policy: new ApprovalPolicy(), askSampling: q.approveSampling }, model: async () => model });
    // The server that asks: four questions at once from "srv", one from "other" between them.
    const ask = (server: string, text: string) => sample({ messages: [{ role: "user", content: { type: "text", text } }], maxTokens: 10 }, { server, signal: new AbortController().signal });
    const first = ask("srv", "one");
    const second = ask("srv", "two");
    const other = ask("other", "three");
    const fourth = ask("srv", "four");
    await new Promise((resolve) => setImmediate(resolve));
    expect(q.getState()).toMatchObject({ current: { kind: "sampling", request: { server: "srv" } }, waiting: 3 });
    q.key({ kind: "text", text: "a" });
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    // The other server's question is next: "srv"'s are not asked again.
    expect(q.getState()).toMatchObject({ current: { kind: "sampling", request: { server: "other" } }, waiting: 0 });
    await Promise.all([second, fourth]);
    expect(sampled.sort()).toEqual(["four", "one", "two"]);
    q.key({ kind: "escape" });
    await expect(other).rejects.toThrow(/User rejected sampling request/);
    // Later ones from "srv" are not asked.
    expect(await ask("srv", "five")).toMatchObject({ content: { text: "ok" } });
    expect(q.getState().current).toBeUndefined();
  });

  it("opens a URL only on yes, and only an http(s) one", async () => {
    const q = new ServerQuestions();
    const opened: string[] = [];
    q.openUrl = (u) => opened.push(u);
    const yes = q.elicitUrl(url, "a");
    q.key(enter);
    expect(await yes).toEqual({ action: "accept" });
    // Not even asked about: a file: URL is no page to open.
    expect(await q.elicitUrl({ ...url, url: "file:///etc/passwd" }, "a")).toEqual({ action: "decline" });
    const escaped = q.elicitUrl(url, "a");
    q.key({ kind: "escape" });
    expect(await escaped).toEqual({ action: "cancel" });
    expect(opened).toEqual(["https://example.com/sign"]);
  });

  it("refuses a URL with control characters instead of showing a cleaned copy and opening the raw one", async () => {
    const notices: string[] = [];
    const q = new ServerQuestions((text) => notices.push(text));
    const opened: string[] = [];
    q.openUrl = (u) => opened.push(u);
    // On screen the escape hides the tail; a browser given the raw string would go elsewhere.
    const hostile = "https://example.com/sign\x1b[8m@evil.example/\x1b[0m";
    expect(await q.elicitUrl({ ...url, url: hostile }, "srv")).toEqual({ action: "decline" });
    expect(q.getState().current).toBeUndefined();
    expect(opened).toEqual([]);
    expect(notices).toEqual(['server "srv" asked you to open a page; declined: the URL contains control characters']);
  });

  it("shows a look-alike domain in punycode, and opens exactly what it shows", async () => {
    const q = new ServerQuestions();
    const opened: string[] = [];
    q.openUrl = (u) => opened.push(u);
    // The second letter is Cyrillic.
    const answer = q.elicitUrl({ ...url, url: "https://e\u0445ample.com/sign in" }, "srv");
    const shown = q.getState().current;
    expect(shown).toMatchObject({ kind: "url", url: "https://xn--eample-bsf.com/sign%20in" });
    q.key({ kind: "text", text: "y" });
    expect(await answer).toEqual({ action: "accept" });
    expect(opened).toEqual([(shown as { url: string }).url]);
  });

  it("accepts a waiting URL question without opening it when the server says the flow is complete", async () => {
    const notices: string[] = [];
    const q = new ServerQuestions((text) => notices.push(text));
    const opened: string[] = [];
    q.openUrl = (u) => opened.push(u);
    const answer = q.elicitUrl(url, "srv");
    q.completed("other", "e1");
    expect(q.getState().current).toBeDefined();
    q.completed("srv", "e1");
    expect(await answer).toEqual({ action: "accept" });
    expect(opened).toEqual([]);
    expect(notices.at(-1)).toBe('server "srv" says the page flow is complete');
  });

  it("drops a sampling question whose request the server gave up, and denies it", async () => {
    const q = new ServerQuestions();
    const abort = new AbortController();
    const answer = q.approveSampling(sampling, abort.signal);
    abort.abort();
    expect(await answer).toEqual({ decision: "deny" });
    expect(q.getState().current).toBeUndefined();
  });

  it("declines at once beyond twenty waiting questions, and says so", async () => {
    const notices: string[] = [];
    const q = new ServerQuestions((text) => notices.push(text));
    for (let i = 0; i < 20; i++) void q.elicitForm(form, "flood");
    expect(await q.elicitForm(form, "flood")).toEqual({ action: "decline" });
    expect(notices).toEqual(["a server question was declined: 20 are already waiting"]);
  });

  it("coalesces a flood of a thousand form requests into two lines: one when the queue fills, one summing up once it has room", async () => {
    const notices: string[] = [];
    const q = new ServerQuestions((text) => notices.push(text));
    const answers = Array.from({ length: 1000 }, () => q.elicitForm(form, "flood"));
    expect(await Promise.all(answers.slice(20))).toEqual(Array.from({ length: 980 }, () => ({ action: "decline" })));
    expect(notices).toEqual(["a server question was declined: 20 are already waiting"]);
    expect(q.getState()).toMatchObject({ waiting: 19, declined: 979 });
    const app = render(<ServerQuestionView question={q.getState().current!} waiting={q.getState().waiting} declined={q.getState().declined} />);
    expect(app.lastFrame()).toContain("19 more questions waiting · 979 more declined");
    app.unmount();
    q.key({ kind: "escape" });
    await answers[0];
    expect(notices).toEqual(["a server question was declined: 20 are already waiting", "979 more server questions were declined"]);
    expect(q.getState()).toMatchObject({ waiting: 18, declined: 0 });
  });

  it("passes a denial's reason, and Ctrl-C denies", async () => {
    const q = new ServerQuestions();
    const denied = q.approveSampling(sampling, undefined);
    for (const key of [{ kind: "text", text: "n" }, { kind: "text", text: "no thanks" }, enter] as const) q.key(key);
    expect(await denied).toEqual({ decision: "deny", reason: "no thanks" });
    const interrupted = q.approveSampling(sampling, undefined);
    q.key({ kind: "ctrl", letter: "c" });
    expect(await interrupted).toEqual({ decision: "deny" });
  });
});

// Longer than one frame, so what changed has been drawn.
const tick = () => new Promise((resolve) => setTimeout(resolve, 80));
let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

function mount() {
  const session = { agent: { send: () => new Promise(() => undefined) } } as unknown as AgentSession;
  const controller = new ChatController(session, picocolors.createColors(false), () => 100);
  const app = render(<ChatApp controller={controller} history={InputHistory.load(undefined)} colors={picocolors.createColors(false)} />);
  unmount = app.unmount;
  return { controller, app };
}

describe("the question dialogs in the chat", () => {
  it("shows who asks to sample and what, cleaned, and answers with a key", async () => {
    const { app, controller } = mount();
    await tick();
    const answer = controller.questions.approveSampling(sampling, undefined);
    await tick();
    const frame = app.lastFrame() ?? "";
    expect(frame).toContain("Server srv asks to use the model m1 · up to 50 tokens");
    expect(frame).toContain("system: Be brief.");
    expect(frame).toContain("user: hello hidden");
    expect(frame).toContain("tools offered: lookup");
    expect(frame).toContain("Always allow this server");
    expect(frame).not.toContain("\x1b[8m");
    app.stdin.write("y");
    expect(await answer).toEqual({ decision: "allow-once" });
  });

  it("draws the form, its inline message, and gives the input back, draft and all, when it ends", async () => {
    const { app, controller } = mount();
    await tick();
    app.stdin.write("my draft");
    await tick();
    const answer = controller.questions.elicitForm(form, "srv");
    await tick();
    let frame = app.lastFrame() ?? "";
    expect(frame).toContain("Server srv asks: Who are you?");
    expect(frame).not.toContain("PWNED\x07");
    expect(frame).toMatch(/Name\*:/);
    expect(frame).toContain("[ ] no");
    // Accept with the required name empty: the message shows, nothing is sent.
    app.stdin.write("\t\t\r");
    await tick();
    frame = app.lastFrame() ?? "";
    expect(frame).toContain("an answer is needed");
    app.stdin.write("Ada");
    await tick();
    app.stdin.write("\t ");
    await tick();
    app.stdin.write("\t\r");
    expect(await answer).toEqual({ action: "accept", content: { name: "Ada", ok: true } });
    await tick();
    frame = app.lastFrame() ?? "";
    expect(frame).not.toContain("asks:");
    expect(frame).toContain("› my draft");
  });

  it("keeps a server's question waiting while the tool approval is up, then shows it", async () => {
    const { app, controller } = mount();
    await tick();
    const tool = { name: "t", originalName: "t", server: "fs", description: "", inputSchema: { type: "object" } } as unknown as HubTool;
    const approval = controller.ask({ tool, arguments: {}, callId: "1" }, undefined);
    const question = controller.questions.elicitUrl(url, "srv");
    await tick();
    expect(app.lastFrame()).toContain("Run t from server fs?");
    expect(app.lastFrame()).not.toContain("asks you to open a page");
    app.stdin.write("y");
    expect(await approval).toEqual({ decision: "allow-once" });
    await tick();
    expect(app.lastFrame()).toContain("Server srv asks you to open a page: Sign in");
    expect(app.lastFrame()).toContain("https://example.com/sign");
    app.stdin.write("n");
    expect(await question).toEqual({ action: "decline" });
  });

  it("keeps a long form and a long message to a screenful: fields scroll with the focus", async () => {
    const { app, controller } = mount();
    await tick();
    const properties = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, { type: "string" as const, title: `Field ${i}` }]));
    void controller.questions.elicitForm({ message: "ж".repeat(5000), requestedSchema: { type: "object", properties } }, "srv");
    await tick();
    let frame = app.lastFrame() ?? "";
    expect(frame).toContain("Field 9:");
    expect(frame).not.toContain("Field 10:");
    expect(frame).toContain("↓ 20 more");
    // The message is cut to 1000 characters (drawn wrapped).
    expect(frame.match(/ж/g)?.length).toBe(1000);
    app.stdin.write("\t".repeat(20));
    await tick();
    frame = app.lastFrame() ?? "";
    expect(frame).toContain("❯ Field 20");
    expect(frame).toMatch(/↑ \d+ more/);
    expect(frame).not.toContain("Field 0:");
  });
});
