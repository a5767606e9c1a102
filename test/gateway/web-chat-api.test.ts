import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledServer } from "../../src/config/bundled-servers.js";
import { appPolicy } from "../../src/gateway/web-chat/apps.js";
import { startHarness, type Harness } from "./harness.js";
import { webChatEvents } from "../support/web-chat-events.js";

/** The web chat's API without a browser: Stop, approval answers, app frames and an app's own tool calls, bounds. */

const APP_SERVER = join(import.meta.dirname, "../fixtures/servers/app-server.mjs");
/** A page's id, as the page makes it when it loads. */
const PAGE = "0123456789abcdef0123456789abcdef";

describe("the web chat API", () => {
  let harness: Harness;
  const post = (path: string, body: unknown) => fetch(`${harness.gateway.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  beforeAll(async () => {
    harness = await startHarness({ servers: { time: { ...bundledServer("time"), trust: true }, counter: { command: process.execPath, args: [APP_SERVER], trust: false } }, approve: "ask" });
  }, 30_000);
  afterAll(async () => harness?.close());

  /** The turn's events, in order, as the page reads them; `onEvent` may act on each. */
  async function turn(input: string, onEvent: (event: { type: string; id?: string; text?: string }) => void = () => undefined) {
    const response = await post("/api/chat", { model: "Qwen/Qwen3-8B", history: [], input });
    return webChatEvents(response, onEvent);
  }

  it("Stop ends the turn and its turn-end carries what had arrived", async () => {
    harness.upstream.push({ text: Array.from({ length: 300 }, (_, i) => `w${i}`).join(" "), chunkDelayMs: 20 });
    let id: string | undefined;
    let deltas = 0;
    const events = await turn("talk", (event) => {
      if (event.type === "turn-start") id = event.id;
      if (event.type === "text-delta" && ++deltas === 10) void post("/api/stop", { id });
    });
    const end = events.at(-1) as { type: string; status: string; messages: { role: string; content: string }[] };
    expect(end.type).toBe("turn-end");
    expect(end.status).toBe("aborted");
    expect(end.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(end.messages[1]?.content).toMatch(/^w0 w1 w2/);
    expect(end.messages[1]?.content).not.toContain("w299");
    expect(await (await post("/api/stop", { id })).json()).toEqual({ stopped: false });
  });

  it("refuses a deny reason past its bound, and an answer to no approval", async () => {
    const long = await post("/api/approvals", { id: "x", fingerprint: "f", decision: "deny", reason: "r".repeat(2001) });
    expect(long.status).toBe(400);
    expect(((await long.json()) as { error: { message: string } }).error.message).toContain("reason");
    expect((await post("/api/approvals", { id: "nobody", fingerprint: "f", decision: "allow-session" })).status).toBe(404);
  });

  it("serves an app's document once asked for it, under its own CSP and sandbox, and nothing that is not a ui:// HTML resource", async () => {
    // An app opens beside its tool's result: the turn shows it first.
    harness.upstream.push({ toolCalls: [{ name: "show-counter", arguments: { start: 1 } }] }, { text: "There." });
    await turn("show a counter", (event) => {
      if (event.type === "approval") void post("/api/approvals", { id: event.id, fingerprint: (event as { fingerprint?: string }).fingerprint, decision: "allow-once" });
    });
    const opened = (await (await post("/api/app-frames", { page: PAGE, uri: "ui://counter/app.html", server: "counter" })).json()) as { path: string };
    const frame = await fetch(`${harness.gateway.url}${opened.path}`);
    expect(frame.status).toBe(200);
    expect(frame.headers.get("content-security-policy")).toMatch(/default-src 'none'.*sandbox allow-scripts allow-forms$/);
    expect(await frame.text()).toContain("ui/initialize");
    expect((await post("/api/app-frames", { page: PAGE, uri: "time://zones", server: "time" })).status).toBe(400);
    expect((await post("/api/app-frames", { page: PAGE, uri: "ui://counter/none.html", server: "counter" })).status).toBeGreaterThanOrEqual(400);
  });

  it("frees what a page's apps hold when the page says it goes: their frames, and their tool calls running are stopped", async () => {
    const held = async (kind: string) => Number(new RegExp(`toolbridge_gateway_web_apps_held\\{kind="${kind}"\\} (\\d+)`).exec(await (await fetch(`${harness.gateway.url}/metrics`)).text())?.[1]);
    const page = "fedcba9876543210fedcba9876543210";
    const opened = (await (await post("/api/app-frames", { page, uri: "ui://counter/app.html", server: "counter" })).json()) as { path: string };
    const frame = opened.path.split("/").at(-1);
    const asked = (await (await post("/api/app-tool", { page, frame, name: "hold", arguments: {} })).json()) as { approval: { id: string; fingerprint: string } };
    const holding = post("/api/app-tool", { page, frame, name: "hold", arguments: {}, approved: { id: asked.approval.id, fingerprint: asked.approval.fingerprint } });
    await expect.poll(() => held("calls"), { timeout: 15_000 }).toBe(1);
    expect(await held("frames")).toBeGreaterThanOrEqual(1);
    // Another page's id closes nothing of this one.
    expect(await (await post("/api/app-pages/close", { page: "1".repeat(32) })).json()).toEqual({ closed: false });
    expect(await held("calls")).toBe(1);
    expect(await (await post("/api/app-pages/close", { page })).json()).toEqual({ closed: true });
    const stopped = await holding;
    expect(stopped.status).toBe(410);
    expect(((await stopped.json()) as { error: { message: string } }).error.message).toBe("The app's page closed; its tool call was stopped");
    expect(await held("calls")).toBe(0);
    expect((await fetch(`${harness.gateway.url}${opened.path}`)).status).toBe(404);
    expect((await post("/api/app-pages/close", { page: "not a page id" })).status).toBe(400);
  });

  it("widens an app's CSP by exactly the origins it may have of those it declares, dropping anything else", () => {
    const policy = appPolicy({ connectDomains: ["https://api.example.com", "https://x.test; script-src *", "javascript:alert(1)"], resourceDomains: ["https://cdn.example.com:8443"] });
    expect(policy).toContain("connect-src https://api.example.com;");
    expect(policy).toContain("script-src 'unsafe-inline' https://cdn.example.com:8443;");
    expect(policy).not.toContain("x.test");
    expect(policy).not.toContain("javascript");
    expect(appPolicy(undefined)).toContain("connect-src 'none'");
  });
});
