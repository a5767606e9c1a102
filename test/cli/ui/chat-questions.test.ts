// The chat's wiring of servers' questions: the browser login offered after a turn, with consent.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import type { AgentSession } from "../../../src/cli/chat/session.js";
import { PrompterSlot } from "../../../src/cli/server-questions/prompter.js";
import { colorsFor } from "../../../src/cli/render/colors.js";
import type { ChatItemBody } from "../../../src/cli/ui/chat-items.js";
import { connectQuestions } from "../../../src/cli/ui/chat-questions.js";
import { ServerQuestions } from "../../../src/cli/ui/server-questions.js";
import { Hub } from "../../../src/mcp/hub.js";
import { hubNeedingLogin, type Cleanup } from "../../support/login-needed.js";
import { fixture } from "../../mcp/processes.js";

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A hub with one OAuth-protected server that needs a login, and the chat's questions connected to it. */
async function setUp() {
  const { hub, auth, browser } = await hubNeedingLogin("toolbridge-chat-login-", cleanups);
  const session = { hub, prompts: new PrompterSlot() } as unknown as AgentSession;
  const shown: ChatItemBody[] = [];
  const questions = new ServerQuestions();
  const connected = connectQuestions(session, questions, (item) => shown.push(item), { BROWSER: browser });
  cleanups.push(() => connected.disconnect());
  return { hub, auth, session, questions, shown, connected };
}

/** Waits for `condition`, within a bound on a hang (not a measure of speed). */
const until = async (condition: () => boolean): Promise<void> => {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

it("after a turn, offers the login a server needs, and with consent logs in through the browser", async () => {
  const { hub, auth, session, questions, shown, connected } = await setUp();
  expect(session.prompts.dialogs).toBe(questions);
  expect(hub.servers()[0]?.needsLogin).toBe(true);
  connected.afterTurn();
  expect(questions.getState().current).toEqual({ kind: "login", server: "protected", selected: 0 });
  // Another turn ends while the offer is up: it is not offered twice.
  connected.afterTurn();
  expect(questions.getState().waiting).toBe(0);
  questions.key({ kind: "text", text: "y" });
  await until(() => shown.some((item) => item.kind === "server"));
  expect(hub.servers()[0]).toMatchObject({ status: "connected", toolCount: 2 });
  expect(auth.authorizeRequests).toHaveLength(1);
  expect(shown[0]).toMatchObject({ kind: "notice", text: expect.stringContaining('log in to server "protected" in your browser; if none opens, visit http') });
  expect(shown.at(-1)).toEqual({ kind: "server", ok: true, text: "protected: logged in" });
});

it("declined, opens nothing and says how to log in later", async () => {
  const { hub, auth, questions, shown, connected } = await setUp();
  connected.afterTurn();
  questions.key({ kind: "text", text: "n" });
  await until(() => shown.length > 0);
  expect(shown).toEqual([{ kind: "notice", tone: "info", text: 'server "protected" stays logged out; toolbridge auth login protected logs in later' }]);
  expect(auth.authorizeRequests).toHaveLength(0);
  expect(hub.servers()[0]?.needsLogin).toBe(true);
});

it("asks a server's URL question in the dialog, opens it on yes, and shows the server's word that the flow is complete", async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolbridge-chat-url-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const opened = join(dir, "opened");
  writeFileSync(join(dir, "browser.mjs"), `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(opened)}, process.argv[2]);\n`);
  const shown: ChatItemBody[] = [];
  const questions = new ServerQuestions((text) => shown.push({ kind: "notice", tone: "info", text }));
  const prompts = new PrompterSlot();
  const { terminalElicitation } = await import("../../../src/cli/server-questions/elicitation.js");
  const handlers = terminalElicitation(prompts, colorsFor({ isTTY: false }, {}), () => undefined);
  const hub = await Hub.connect({ tasks: fixture("task-server.mjs") }, { ...handlers, stderrLogFile: join(dir, "log") });
  cleanups.push(() => hub.close());
  const connected = connectQuestions({ hub, prompts } as unknown as AgentSession, questions, (item) => shown.push(item), { BROWSER: `${process.execPath} ${join(dir, "browser.mjs")}` });
  cleanups.push(() => connected.disconnect());
  const call = hub.callTool("url-flow", {});
  await until(() => questions.getState().current !== undefined);
  expect(questions.getState().current).toMatchObject({ kind: "url", server: "tasks", url: "https://example.com/sign-in", message: "Sign in" });
  questions.key({ kind: "text", text: "y" });
  expect((await call).content).toEqual([{ type: "text", text: "accept" }]);
  await until(() => shown.length > 0 && existsSync(opened));
  expect(shown).toEqual([{ kind: "notice", tone: "info", text: 'server "tasks" says the page flow is complete' }]);
  expect(readFileSync(opened, "utf8")).toBe("https://example.com/sign-in");
});
