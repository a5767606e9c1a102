import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledServer } from "../../src/config/bundled-servers.js";
import { appPolicy } from "../../src/gateway/web-chat/apps.js";
import { webChatEvents } from "../support/web-chat-events.js";
import { startHarness, type Harness } from "./harness.js";

/**
 * The web chat's routes under one caller policy, against hostile clients with keys of their own:
 * what /mcp refuses is not served by /api/resource or /api/prompt unasked; an app's tool call runs
 * only for an app shown to that key, through a question issued for that very call; a turn's Stop
 * and approvals are its own key's; an app's CSP reaches nothing local.
 */

const APP_SERVER = join(import.meta.dirname, "../fixtures/servers/app-server.mjs");
const SHIFTING = join(import.meta.dirname, "../fixtures/servers/shifting-tool.mjs");
const KEY_A = "web-chat-key-a-0123456789abcdef";
const KEY_B = "web-chat-key-b-0123456789abcdef";
const PAGE_A = "a".repeat(32);
const PAGE_B = "b".repeat(32);

type Json = Record<string, unknown>;
/** What the page sends back of a question: its id and the fingerprint shown with it. */
const pick = (question: unknown) => ({ id: (question as { id: string }).id, fingerprint: (question as { fingerprint: string }).fingerprint });

describe("the web chat under one caller policy, with two keys", () => {
  let harness: Harness;
  const post = (key: string, path: string, body: unknown) =>
    fetch(`${harness.gateway.url}${path}`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
  const json = async (key: string, path: string, body: unknown) => {
    const response = await post(key, path, body);
    return { status: response.status, body: (await response.json()) as Json };
  };

  /** One turn of `key`'s, its events in order; `onEvent` may act on each as it comes. */
  async function turn(key: string, input: string, onEvent: (event: Json) => void | Promise<void> = () => undefined): Promise<Json[]> {
    return webChatEvents(await post(key, "/api/chat", { model: "Qwen/Qwen3-8B", history: [], input }), onEvent);
  }

  beforeAll(async () => {
    harness = await startHarness({
      servers: { time: { ...bundledServer("time"), trust: false }, counter: { command: process.execPath, args: [APP_SERVER], autoApprove: ["show-counter"] }, shifty: { command: process.execPath, args: [SHIFTING, "--name", "shifty", "--sync", "destructive"] } },
      approve: "ask",
      apiKeys: [KEY_A, KEY_B],
    });
  }, 30_000);
  afterAll(async () => harness?.close());

  it("asks before /api/resource and /api/prompt serve what /mcp refuses under the same key, and serves it once answered", async () => {
    const client = new Client({ name: "hostile", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${harness.gateway.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${KEY_A}` } } }));
    try {
      await expect(client.readResource({ uri: "time://zones" })).rejects.toThrow(/not found/i);
      expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).not.toContain("time-in");
    } finally {
      await client.close();
    }
    // The same key, through the web chat's routes: a question, not the resource.
    const resource = await json(KEY_A, "/api/resource", { uri: "time://zones", server: "time" });
    expect(resource.status).toBe(200);
    expect(resource.body).not.toHaveProperty("contents");
    const asked = resource.body.approval as { id: string; fingerprint: string; uri: string; server: string };
    expect({ uri: asked.uri, server: asked.server }).toEqual({ uri: "time://zones", server: "time" });
    const prompt = await json(KEY_A, "/api/prompt", { name: "time-in", server: "time", arguments: { place: "Taipei" } });
    expect(prompt.body).not.toHaveProperty("messages");
    // Echoing a fingerprint with a made-up id is no answer; another key cannot answer A's question.
    expect((await json(KEY_A, "/api/resource", { uri: "time://zones", server: "time", approved: { id: crypto.randomUUID(), fingerprint: asked.fingerprint } })).status).toBe(404);
    expect((await json(KEY_B, "/api/resource", { uri: "time://zones", server: "time", approved: pick(asked) })).status).toBe(404);
    // Nor can A's answer to one resource read another.
    const other = await json(KEY_A, "/api/resource", { uri: "time://now/UTC", server: "time" });
    const otherAsked = other.body.approval as { id: string; fingerprint: string };
    expect((await json(KEY_A, "/api/resource", { uri: "time://zones", server: "time", approved: pick(otherAsked) })).status).toBe(409);
    // The question answered: served once.
    const again = await json(KEY_A, "/api/resource", { uri: "time://zones", server: "time" });
    const read = await json(KEY_A, "/api/resource", { uri: "time://zones", server: "time", approved: pick(again.body.approval) });
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body.contents)).toContain("Asia/Taipei");
    expect((await json(KEY_A, "/api/resource", { uri: "time://zones", server: "time", approved: pick(again.body.approval) })).status).toBe(404);
    const promptAsked = prompt.body.approval as { id: string; fingerprint: string };
    // Other arguments than those shown are another question.
    expect((await json(KEY_A, "/api/prompt", { name: "time-in", server: "time", arguments: { place: "Paris" }, approved: pick(promptAsked) })).status).toBe(409);
    const prompt2 = await json(KEY_A, "/api/prompt", { name: "time-in", server: "time", arguments: { place: "Taipei" } });
    const got = await json(KEY_A, "/api/prompt", { name: "time-in", server: "time", arguments: { place: "Taipei" }, approved: pick(prompt2.body.approval) });
    expect(JSON.stringify(got.body.messages)).toContain("Asia/Taipei");
  });

  it("ties a turn's Stop and its approvals to the key that started it, and an approval's answer to the call shown", async () => {
    harness.upstream.push({ toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }] }, { text: "done" });
    const tries: { stop: Json; answer: number; mismatch: Json }[] = [];
    let started: unknown;
    const events = await turn(KEY_A, "what day is it?", async (event) => {
      if (event.type === "turn-start") started = event.id;
      if (event.type !== "approval") return;
      const stop = (await json(KEY_B, "/api/stop", { id: started })).body;
      const answer = (await post(KEY_B, "/api/approvals", { id: event.id, fingerprint: event.fingerprint, decision: "allow-once" })).status;
      // A's own page, answering a call other than the one shown.
      const mismatch = await json(KEY_A, "/api/approvals", { id: event.id, fingerprint: "0".repeat(32), decision: "allow-once" });
      tries.push({ stop, answer, mismatch: { status: mismatch.status, message: (mismatch.body.error as { message: string }).message } });
      expect((await post(KEY_A, "/api/approvals", { id: event.id, fingerprint: event.fingerprint, decision: "allow-once" })).status).toBe(200);
    });
    expect(tries).toHaveLength(1);
    expect(tries[0]?.stop).toEqual({ stopped: false });
    expect(tries[0]?.answer).toBe(404);
    expect(tries[0]?.mismatch).toEqual({ status: 409, message: expect.stringContaining("another call than the one answered") });
    const end = events.at(-1) as { type: string; status: string };
    expect(end).toMatchObject({ type: "turn-end", status: "completed" });
    expect(events.find((event) => event.type === "tool-call-finished")).toMatchObject({ name: "get-date", outcome: "ok" });
  });

  it("takes 'allow every tool of this server' only from the key asked, and then runs that server's next call of the turn unasked", async () => {
    harness.upstream.push(
      { toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }] },
      { toolCalls: [{ name: "get-date", arguments: { format: "iso" } }] },
      { text: "both dates" },
    );
    const refused: number[] = [];
    const events = await turn(KEY_A, "what day is it, twice?", async (event) => {
      if (event.type !== "approval") return;
      refused.push((await post(KEY_B, "/api/approvals", { ...pick(event), decision: "allow-server" })).status);
      expect((await post(KEY_A, "/api/approvals", { ...pick(event), decision: "allow-server" })).status).toBe(200);
    });
    expect(refused).toEqual([404]);
    expect(events.filter((event) => event.type === "approval")).toHaveLength(1);
    expect(events.filter((event) => event.type === "tool-call-finished").map((event) => event.outcome)).toEqual(["ok", "ok"]);
    expect(events.at(-1)).toMatchObject({ type: "turn-end", status: "completed" });
  });

  it("opens an app's frame and runs its tool calls only for the key it was shown to, each call through a question issued for it", async () => {
    // No app was shown yet: neither key can open it, nor call its server's tools.
    expect((await json(KEY_A, "/api/app-frames", { page: PAGE_A, uri: "ui://counter/app.html", server: "counter" })).status).toBe(403);
    harness.upstream.push({ toolCalls: [{ name: "show-counter", arguments: { start: 1 } }] }, { text: "There." });
    await turn(KEY_A, "show a counter");
    const opened = await json(KEY_A, "/api/app-frames", { page: PAGE_A, uri: "ui://counter/app.html", server: "counter" });
    expect(opened.status).toBe(200);
    const frame = String(opened.body.path).split("/").at(-1) as string;
    // B was not shown it, and cannot borrow A's frame.
    expect((await json(KEY_B, "/api/app-frames", { page: PAGE_B, uri: "ui://counter/app.html", server: "counter" })).status).toBe(403);
    expect((await json(KEY_B, "/api/app-tool", { page: PAGE_B, frame, name: "add-one", arguments: { n: 1 } })).status).toBe(404);
    // The old call, naming a tool rather than a frame, is refused; so is a frame of another page.
    expect((await json(KEY_A, "/api/app-tool", { page: PAGE_A, appTool: "show-counter", name: "add-one", arguments: { n: 1 } })).status).toBe(400);
    expect((await json(KEY_A, "/api/app-tool", { page: "c".repeat(32), frame, name: "add-one", arguments: { n: 1 } })).status).toBe(404);
    // Echoing the fingerprint of its own refusal, without the question's id, runs nothing.
    const asked = await json(KEY_A, "/api/app-tool", { page: PAGE_A, frame, name: "add-one", arguments: { n: 1 } });
    const question = asked.body.approval as { id: string; fingerprint: string; server: string };
    expect(question.server).toBe("counter");
    expect((await json(KEY_A, "/api/app-tool", { page: PAGE_A, frame, name: "add-one", arguments: { n: 1 }, approved: { id: crypto.randomUUID(), fingerprint: question.fingerprint } })).status).toBe(404);
    // The arguments changed after the question was shown: refused, and the question is used up.
    const changed = await json(KEY_A, "/api/app-tool", { page: PAGE_A, frame, name: "add-one", arguments: { n: 1000 }, approved: { id: question.id, fingerprint: question.fingerprint } });
    expect(changed.status).toBe(409);
    expect((await json(KEY_A, "/api/app-tool", { page: PAGE_A, frame, name: "add-one", arguments: { n: 1 }, approved: pick(question) })).status).toBe(404);
    const next = (await json(KEY_A, "/api/app-tool", { page: PAGE_A, frame, name: "add-one", arguments: { n: 1 } })).body.approval as { id: string; fingerprint: string };
    const ran = await json(KEY_A, "/api/app-tool", { page: PAGE_A, frame, name: "add-one", arguments: { n: 1 }, approved: pick(next) });
    expect((ran.body.result as { structuredContent: { count: number } }).structuredContent.count).toBe(2);
    // Once only.
    expect((await json(KEY_A, "/api/app-tool", { page: PAGE_A, frame, name: "add-one", arguments: { n: 1 }, approved: pick(next) })).status).toBe(404);
    // Another server's tool is not the app's to call, trusted or not.
    expect((await json(KEY_A, "/api/app-tool", { page: PAGE_A, frame, name: "get-date", arguments: {} })).status).toBe(403);
  });

  it("tells the page that a tool its server marks destructive may change or delete data, as the terminal says", async () => {
    harness.upstream.push({ toolCalls: [{ name: "sync", arguments: {} }] }, { text: "not synced" });
    const events = await turn(KEY_A, "sync it", async (event) => {
      if (event.type === "approval") await post(KEY_A, "/api/approvals", { id: event.id, fingerprint: event.fingerprint, decision: "deny" });
    });
    expect(events.find((event) => event.type === "approval")).toMatchObject({ tool: "sync", server: "shifty", destructive: true });
    expect(events.find((event) => event.type === "tool-call-finished")).toMatchObject({ outcome: "denied" });
  });

  it("leaves wildcard and local hosts out of an app's CSP, naming each, unless the config allows them", () => {
    const declared = { connectDomains: ["http://*", "https://*.example.com", "http://192.168.1.1", "http://10.0.0.5:8080", "http://localhost:3000", "http://2130706433", "http://169.254.169.254", "http://printer.local", "http://router", "https://api.example.com"] };
    const refused: string[] = [];
    const policy = appPolicy(declared, false, refused);
    expect(policy).toContain("connect-src https://api.example.com;");
    expect(refused).toHaveLength(9);
    expect(refused[0]).toBe("http://* (a wildcard host; gateway.appCspAllowLocal allows it)");
    expect(refused).toContain("http://2130706433 (a loopback, private or link-local address; gateway.appCspAllowLocal allows it)");
    expect(appPolicy(declared, true)).toContain(`connect-src ${declared.connectDomains.join(" ")};`);
  });
});
