import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { bundledServer } from "../../src/config/bundled-servers.js";
import { MAX_REQUEST_DEPTH } from "../../src/gateway/http.js";
import { DEFAULT_MAX_CONCURRENT_PER_KEY, isLoopback } from "../../src/gateway/server.js";
import { MAX_PENDING_APPROVALS_PER_CLIENT, MAX_RUNNING_TURNS_PER_CLIENT, PendingApprovals } from "../../src/gateway/web-chat/turns.js";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";
import { startHarness, type Harness } from "./harness.js";

/** Clients that attack the gateway: other local pages, slow and deep bodies, a flood of approvals. */

let harness: Harness | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await harness?.close();
  harness = undefined;
});

const chat = { model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "date?" }] };

function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${(harness as Harness).gateway.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
}

describe("a page on this machine", () => {
  it("on another loopback port cannot make the gateway run a tool; the gateway's own page can", async () => {
    harness = await startHarness({ replies: [{ toolCalls: [{ name: "get-date", arguments: {} }] }, { text: "today" }] });
    const port = Number(new URL(harness.gateway.url).port);
    for (const origin of [`http://127.0.0.1:${port + 1}`, `http://localhost:${port + 1}`, "http://localhost"]) {
      const response = await post("/v1/chat/completions", JSON.stringify(chat), { origin });
      expect(response.status, origin).toBe(403);
      expect(await response.json()).toMatchObject({ error: { message: `Origin not allowed: ${origin}` } });
    }
    expect(harness.upstream.chatRequests).toHaveLength(0);
    expect((await post("/v1/chat/completions", JSON.stringify(chat), { origin: `http://localhost:${port}` })).status).toBe(200);
  });

  it("cannot send a body as text/plain or a form, which a browser sends to any site without asking", async () => {
    harness = await startHarness({ replies: [{ text: "hi" }] });
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const response = await post("/v1/chat/completions", JSON.stringify(chat), { "content-type": type });
      expect(response.status, type).toBe(415);
      expect((await response.json()) as unknown).toMatchObject({ error: { message: `The request body must be sent as Content-Type: application/json (not ${type.split(";")[0]})` } });
    }
    expect(harness.upstream.chatRequests).toHaveLength(0);
  });
});

describe("bodies", () => {
  /** Sends the headers and the first bytes of a body, then one byte a second: a slow-loris client. */
  function trickle(url: string, path: string): Promise<string> {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    sockets.push(socket);
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString()));
    socket.write(`POST ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"model":`);
    const timer = setInterval(() => socket.write(" "), 1000);
    return new Promise((resolve) => {
      socket.on("close", () => {
        clearInterval(timer);
        resolve(answer);
      });
      socket.on("error", () => undefined);
    });
  }

  it("that trickle in take no slot, and are cut at the time limit with 408", async () => {
    harness = await startHarness({ replies: [{ text: "hi" }], maxConcurrentPerKey: 2, bodyTimeoutMs: 1500 });
    const slow = [1, 2, 3, 4].map(() => trickle((harness as Harness).gateway.url, "/v1/chat/completions"));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Every slot would be held by now if a slot were taken before the body.
    const response = await post("/v1/chat/completions", JSON.stringify(chat));
    expect(response.status).toBe(200);
    for (const answer of await Promise.all(slow)) {
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toContain("The request body took longer than 1500 ms to arrive");
    }
  }, 30_000);

  it("nested thousands deep is refused before it is parsed, and the gateway keeps answering", async () => {
    harness = await startHarness({});
    const depth = 4 * 1024 * 1024 - 16;
    const deep = `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const [refused, health] = await Promise.all([post("/v1/chat/completions", deep), fetch(`${harness.gateway.url}/healthz`)]);
    expect(health.status).toBe(200);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { message: `The request body is nested more than ${MAX_REQUEST_DEPTH} levels deep (the limit)` } });
    // Brackets inside strings are text, not nesting.
    const quoted = await post("/v1/chat/completions", JSON.stringify({ ...chat, messages: [{ role: "user", content: "[".repeat(10_000) }] }));
    expect(quoted.status).not.toBe(400);
  });

  it("of 8 MiB nested 500 deep are refused as they arrive: the answer comes before the rest of the body is sent", async () => {
    harness = await startHarness({});
    const { hostname, port } = new URL(harness.gateway.url);
    // Objects 500 deep, one after another, up to 8 MiB; the client sends the first 64 KiB and then waits.
    const one = `${'{"a":'.repeat(500)}1${"}".repeat(500)}`;
    const body = Buffer.from(`{"model":"m","messages":[${Array.from({ length: Math.floor((8 * 1024 * 1024 - 64) / (one.length + 1)) }, () => one).join(",")}]}`);
    const socket = connect(Number(port), hostname);
    sockets.push(socket);
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString()));
    const closed = new Promise((resolve) => socket.on("close", resolve));
    socket.on("error", () => undefined);
    socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`);
    socket.write(body.subarray(0, 64 * 1024));
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain(`The request body is nested more than ${MAX_REQUEST_DEPTH} levels deep (the limit)`);
    expect((await fetch(`${harness.gateway.url}/healthz`)).status).toBe(200);
  });
});

describe("the address to listen on", () => {
  it("is loopback only when it is one, not when it starts like one", () => {
    expect(isLoopback("127.0.0.1.attacker.example")).toBe(false);
    expect(isLoopback("127.attacker.example")).toBe(false);
    expect(isLoopback("localhost.attacker.example")).toBe(false);
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "localhost"]) expect(isLoopback(host), host).toBe(true);
  });
});

describe("approvals waiting at the web chat", () => {
  const KEYS = ["tb-client-one-0123456789", "tb-client-two-0123456789"];
  type WebEvent = { type: string; outcome?: string; id?: string; fingerprint?: string };

  /** Starts a web chat turn as `key` and collects its events until `until` holds. */
  async function turn(key: string, until: (events: WebEvent[]) => boolean) {
    const controller = new AbortController();
    const response = await fetch(`${(harness as Harness).gateway.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: DEFAULT_VLLM_MODEL, history: [], input: "dates?" }),
      signal: controller.signal,
    });
    const events: WebEvent[] = [];
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let buffered = "";
    while (!until(events)) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += new TextDecoder().decode(value);
      const parts = buffered.split("\n\n");
      buffered = parts.pop() ?? "";
      for (const part of parts) if (part.startsWith("data: ")) events.push(JSON.parse(part.slice(6)) as WebEvent);
    }
    return { events, stop: () => controller.abort() };
  }

  const count = (events: WebEvent[], type: string, outcome?: string) =>
    events.filter((event) => event.type === type && (outcome === undefined || event.outcome === outcome)).length;
  /** One get-date call per zone: each call differs, or the repeat guard would stop them. */
  const dateCalls = (zones: number[]) => ({ toolCalls: zones.map((i) => ({ name: "get-date", arguments: { timezone: `Zone/${i}` } })) });
  const untrusted = { time: { ...bundledServer("time"), trust: false } };

  it("are capped per client, so one client cannot leave another no room to ask", async () => {
    // A turn asks one question at a time, and a client's turns are fewer than this cap: asked here directly.
    const approvals = new PendingApprovals();
    const tool = { name: "get-date", originalName: "get-date", server: "time", inputSchema: { type: "object" as const } };
    const stop = new AbortController();
    const asked: string[] = [];
    const ask = (caller: string, i: number) => approvals.asker(caller, (question) => asked.push(`${caller} ${question.id}`))({ tool, arguments: { i }, callId: `call-${i}` }, stop.signal);
    const flood = Array.from({ length: MAX_PENDING_APPROVALS_PER_CLIENT }, (_, i) => ask("one", i).catch(() => undefined));
    await expect(ask("one", -1)).rejects.toThrow(`too many approvals waiting for this client (at most ${MAX_PENDING_APPROVALS_PER_CLIENT})`);
    const other = ask("two", 0).catch(() => undefined);
    expect(asked.filter((line) => line.startsWith("two "))).toHaveLength(1);
    stop.abort();
    await Promise.all([...flood, other]);
  });

  it("expire unanswered: the call is denied with a reason the model reads, and the turn goes on", async () => {
    harness = await startHarness({ servers: untrusted, approvalTimeoutMs: 1000, replies: [dateCalls([1]), { text: "not without approval" }] });
    const waited = await turn("none", (events) => events.at(-1)?.type === "turn-end");
    expect(count(waited.events, "approval")).toBe(1);
    expect(count(waited.events, "tool-call-finished", "denied")).toBe(1);
    expect(waited.events.at(-1)).toMatchObject({ type: "turn-end", status: "completed" });
    const told = JSON.stringify((harness as Harness).upstream.chatRequests.at(-1)?.body.messages);
    expect(told).toContain("no one answered the approval within 1 s, so it expired (gateway.approvalTimeoutSeconds)");
  }, 30_000);

  it("hold at most a client's share of the turns, half its requests at once, so it can still answer them and another client can still ask", async () => {
    // Without keys every local page is one client: its turns waiting for approvals must not fill its requests at once.
    harness = await startHarness({ servers: untrusted, apiKeys: KEYS, replies: Array.from({ length: 40 }, (_, i) => dateCalls([i])) });
    const flood = await Promise.all(
      Array.from({ length: DEFAULT_MAX_CONCURRENT_PER_KEY }, () => turn(KEYS[0] as string, (events) => count(events, "approval") === 1 || count(events, "turn-end") === 1)),
    );
    const waiting = flood.filter((one) => count(one.events, "approval") === 1);
    expect(waiting).toHaveLength(MAX_RUNNING_TURNS_PER_CLIENT);
    for (const refused of flood.filter((one) => count(one.events, "approval") === 0)) {
      expect(refused.events.at(-1)).toMatchObject({ type: "turn-end", status: "failed", error: { code: "busy", message: `Too many turns running at once for this client (at most ${MAX_RUNNING_TURNS_PER_CLIENT}, half of gateway.maxConcurrentPerKey up to ${MAX_RUNNING_TURNS_PER_CLIENT})` } });
    }
    const approval = waiting[0]?.events.find((event) => event.type === "approval");
    const answered = await post("/api/approvals", JSON.stringify({ id: approval?.id, fingerprint: approval?.fingerprint, decision: "deny" }), { authorization: `Bearer ${KEYS[0]}` });
    expect(answered.status).toBe(200);
    const other = await turn(KEYS[1] as string, (events) => count(events, "approval") === 1);
    expect(count(other.events, "approval")).toBe(1);
    for (const one of [...flood, other]) one.stop();
  }, 60_000);
});

describe("an approval for the session at the web chat", () => {
  it("does not pass to another server's tool that takes the name during the turn", async () => {
    const shifting = (name: string, sync: string, ...more: string[]) => ({ command: process.execPath, args: [join(import.meta.dirname, "../fixtures/servers/shifting-tool.mjs"), "--name", name, "--sync", sync, ...more] });
    harness = await startHarness({
      // alpha's sync answers once released: the turn's next model request comes after the swap is heard.
      servers: { alpha: shifting("alpha", "readonly", "--hold"), beta: shifting("beta", "none") },
      replies: [{ toolCalls: [{ name: "sync", arguments: {} }] }, { toolCalls: [{ name: "sync", arguments: {} }] }, { text: "done" }],
    });
    const hub = harness.hub;
    const response = await fetch(`${harness.gateway.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: DEFAULT_VLLM_MODEL, history: [], input: "sync twice" }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const approvals: { id: string; server: string }[] = [];
    const finished: { outcome: string; summary: string }[] = [];
    let buffered = "";
    while (finished.length < 2) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += new TextDecoder().decode(value);
      const parts = buffered.split("\n\n");
      buffered = parts.pop() ?? "";
      for (const part of parts) {
        const event = JSON.parse(part.slice(6)) as { type: string; id: string; server: string; outcome: string; summary: string; fingerprint: string };
        if (event.type === "tool-call-finished") finished.push(event);
        if (event.type !== "approval") continue;
        approvals.push(event);
        // Always for alpha's read-only sync; then alpha drops it and beta adds a destructive one.
        const decision = event.server === "alpha" ? "allow-session" : "deny";
        await post("/api/approvals", JSON.stringify({ id: event.id, fingerprint: event.fingerprint, decision }));
        if (event.server === "alpha") {
          await hub.callTool("alpha__set-sync", { kind: "none" });
          await hub.callTool("beta__set-sync", { kind: "destructive" });
          // Both list changes heard: `sync` is beta's alone.
          await vi.waitFor(() => expect(hub.tools().filter((tool) => tool.originalName === "sync").map((tool) => tool.server)).toEqual(["beta"]), { timeout: 20_000 });
          await hub.callTool("alpha__release", {});
        }
      }
    }
    await reader.cancel();
    expect(approvals.map((approval) => approval.server)).toEqual(["alpha", "beta"]);
    expect(finished.map((call) => call.outcome)).toEqual(["ok", "denied"]);
    expect(((await hub.callTool("beta__runs", {})).content[0] as { text: string }).text).toBe("0");
  }, 60_000);
});

describe("a body of a million small entries", () => {
  /** Just under the gateway's 8 MiB: `count` entries of `entry`. */
  const many = (entry: unknown, count = 700_000) => Array.from({ length: count }, () => entry);
  const cases: [string, string, object, string][] = [
    ["/v1/chat/completions", "messages", { model: "m", messages: many({ role: 1 }) }, "messages: 700000 messages; at most 10000 are accepted"],
    ["/v1/chat/completions", "tools", { model: "m", messages: [{ role: "user", content: "hi" }], tools: many({ type: 1 }) }, "tools: 700000 tools; at most 1000 are accepted"],
    ["/v1/chat/completions", "content parts", { model: "m", messages: [{ role: "user", content: many({ type: 1 }) }] }, "messages.0.content: 700000 content parts; at most 1000 are accepted"],
    ["/v1/responses", "tools", { model: "m", input: "hi", tools: many({ type: 1 }) }, "tools: 700000 tools; at most 1000 are accepted"],
    ["/v1/messages", "messages", { model: "m", max_tokens: 5, messages: many({ role: 1 }) }, "messages: 700000 messages; at most 10000 are accepted"],
    ["/v1/messages", "content blocks", { model: "m", max_tokens: 5, messages: [{ role: "user", content: many({ type: 1 }) }] }, "messages.0.content: 700000 content blocks; at most 1000 are accepted"],
  ];
  it.each(cases)("%s with 700,000 %s is refused in one line naming the field and the limit", async (path, _what, body, line) => {
    harness = await startHarness({ replies: [] });
    const response = await post(path, JSON.stringify(body));
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain(JSON.stringify(line));
    expect(harness.upstream.chatRequests).toHaveLength(0);
  });
});
