import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type RedisServer } from "../support/redis-server.js";
import { DEFAULT_VLLM_MODEL, startVllmServer, type VllmServer } from "../support/vllm-server.js";

/**
 * Two `toolbridge gateway` processes sharing one real Redis (`--store redis://…`), as replicas
 * behind a load balancer: what one stores or counts, the other sees.
 */

const CLI = join(import.meta.dirname, "../../dist/cli/main.js");
const DATE_CALL = { toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }] };
const EVERYTHING = join(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
/** server-everything, whose tool that asks for a form runs unasked: the question is the server's. */
const ASKING = { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], autoApprove: ["trigger-elicitation-request"] } };

interface Replica {
  url: string;
  child: ChildProcess;
  stderr: () => string;
}

let home: string;
let redis: RedisServer;
let upstream: VllmServer;
const children: ChildProcess[] = [];

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "toolbridge-replicas-"));
  redis = await startRedis();
  upstream = await startVllmServer({ replies: [] });
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  await upstream?.close();
  await redis?.stop();
  rmSync(home, { recursive: true, force: true });
});

async function replica(name: string, gateway: Record<string, unknown> = {}, trust = true, servers: Record<string, unknown> = {}): Promise<Replica> {
  const config = join(home, `${name}.json`);
  writeFileSync(config, JSON.stringify({ mcpServers: { time: { command: process.execPath, args: [CLI, "serve", "time"], trust }, ...servers }, gateway }));
  const child = spawn(process.execPath, [CLI, "gateway", "--config", config, "--listen", "127.0.0.1:0", "--base-url", upstream.url, "--model", DEFAULT_VLLM_MODEL, "--store", redis.url], {
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: home, XDG_STATE_HOME: join(home, "state"), NO_COLOR: "1" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.push(child);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!/listening on (http:\/\/\S+) /.test(stderr)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the gateway did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: /listening on (http:\/\/\S+) /.exec(stderr)?.[1] as string, child, stderr: () => stderr };
}

/** A web-chat turn on `replica`: `until` waits for the first match of `pattern` in its stream (its group), `rest` reads to the end. */
async function webTurn(replica: Replica, input: string) {
  const chat = await fetch(`${replica.url}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: DEFAULT_VLLM_MODEL, history: [], input }) });
  const reader = chat.body!.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  return {
    async until(pattern: RegExp): Promise<string> {
      for (;;) {
        const found = pattern.exec(seen)?.[1];
        if (found !== undefined) return found;
        const { value, done } = await reader.read();
        if (done) throw new Error(`the turn ended without ${pattern}: ${seen}\n${replica.stderr().slice(-3000)}`);
        seen += value;
      }
    },
    async rest(): Promise<string> {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return seen;
        seen += value;
      }
    },
  };
}

function sdk(replica: Replica, apiKey = "none"): OpenAI {
  return new OpenAI({ baseURL: `${replica.url}/v1`, apiKey, maxRetries: 0 });
}

describe("two replicas on one Redis", () => {
  let a: Replica;
  let b: Replica;
  beforeAll(async () => {
    [a, b] = await Promise.all([replica("a", {}, false, ASKING), replica("b", {}, false, ASKING)]);
  }, 120_000);

  it("a response stored through one replica is continued, read and deleted through the other", async () => {
    upstream.push({ text: "Hello Ada." }, { text: "Your name is Ada." });
    const first = await sdk(a).responses.create({ model: DEFAULT_VLLM_MODEL, input: "My name is Ada." });
    const second = await sdk(b).responses.create({ model: DEFAULT_VLLM_MODEL, input: "My name?", previous_response_id: first.id });
    expect(second.output_text).toBe("Your name is Ada.");
    expect(JSON.stringify(upstream.chatRequests.at(-1)?.body.messages)).toContain("Hello Ada.");
    expect((await sdk(a).responses.retrieve(second.id)).output_text).toBe("Your name is Ada.");
    await sdk(b).responses.delete(first.id);
    await expect(sdk(a).responses.retrieve(first.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  }, 60_000);

  it("a web-chat approval waiting on one replica is answered through the other", async () => {
    upstream.push(DATE_CALL, { text: "It is today." });
    const turn = await webTurn(a, "date?");
    const approvalId = await turn.until(/"type":"approval","id":"([^"]+)"/);
    const fingerprint = await turn.until(/"fingerprint":"([^"]+)"/);
    const answered = await fetch(`${b.url}/api/approvals`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: approvalId, fingerprint, decision: "allow-once" }) });
    expect(answered.status).toBe(200);
    const seen = await turn.rest();
    expect(seen).toContain('"outcome":"ok"');
    expect(seen).toContain("It is today.");
    // Answered once: a second answer finds nothing waiting anywhere.
    const again = await fetch(`${a.url}/api/approvals`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: approvalId, fingerprint, decision: "deny" }) });
    expect(again.status).toBe(404);
  }, 60_000);

  it("a server's question waiting on one replica is checked and answered through the other", async () => {
    upstream.push({ toolCalls: [{ name: "trigger-elicitation-request", arguments: {} }] }, { text: "Thanks, Ada." });
    const turn = await webTurn(a, "ask me");
    const questionId = await turn.until(/"type":"server-question","question":\{"kind":"form","id":"([^"]+)"/);
    const answer = (replica: Replica, body: Record<string, unknown>) => fetch(`${replica.url}/api/questions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: questionId, ...body }) });
    // The other replica checks the answer against the form the page was shown: the required name is missing.
    const invalid = await answer(b, { action: "accept", content: { check: true } });
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { error: { message: string } }).error.message).toBe("content.name: an answer is needed");
    expect((await answer(b, { action: "accept", content: { name: "Ada", check: true } })).status).toBe(200);
    const seen = await turn.rest();
    expect(seen).toContain("Thanks, Ada.");
    const toolMessage = JSON.stringify((upstream.chatRequests.at(-1)?.body.messages as { role: string }[]).filter((message) => message.role === "tool"));
    expect(toolMessage).toContain("Ada");
    // Answered once: a second answer, through either replica, finds nothing waiting.
    expect((await answer(a, { action: "decline" })).status).toBe(404);
    expect((await answer(b, { action: "decline" })).status).toBe(404);
  }, 60_000);

  it("with Redis gone each request gets a 503 of one line, nothing crashes, and service resumes when Redis is back", async () => {
    await redis.stop();
    try {
      const response = await fetch(`${a.url}/v1/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: DEFAULT_VLLM_MODEL, input: "hi" }) });
      expect(response.status).toBe(503);
      const body = (await response.json()) as { error: { message: string; code: string } };
      expect(body.error.code).toBe("store_unavailable");
      expect(body.error.message).toMatch(/^The gateway's store \(redis:\/\/127\.0\.0\.1:\d+\) is unavailable: [^\n]+$/);
      expect((await fetch(`${b.url}/v1/models`)).status).toBe(503);
    } finally {
      await redis.restart();
    }
    expect(a.child.exitCode).toBeNull();
    expect(b.child.exitCode).toBeNull();
    await expect.poll(async () => (await fetch(`${b.url}/v1/models`)).status, { timeout: 20_000, interval: 200 }).toBe(200);
    upstream.push({ text: "back" });
    await expect.poll(async () => (await fetch(`${a.url}/v1/models`)).status, { timeout: 20_000, interval: 200 }).toBe(200);
    expect((await sdk(a).responses.create({ model: DEFAULT_VLLM_MODEL, input: "hi" })).output_text).toBe("back");
    // One warning for the outage, not one per reconnection attempt.
    expect(a.stderr().match(/"msg":"redis unavailable"/g)?.length).toBe(1);
  }, 90_000);
});

describe("limits shared by two replicas", () => {
  const KEYS = ["tb-replica-key-one-0123456789", "tb-replica-key-two-0123456789", "tb-replica-key-three-012345678"];
  const limits = { apiKeys: KEYS, maxConcurrentPerKey: 1 };
  const models = (replica: Replica, key: string) => fetch(`${replica.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });

  it("counts a key's requests running at once over both replicas", async () => {
    const [a, b] = await Promise.all([replica("ca", limits), replica("cb", limits)]);
    upstream.push({ kind: "hang" });
    const controller = new AbortController();
    const before = upstream.chatRequests.length;
    const hanging = sdk(a, KEYS[0]).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "wait" }] }, { signal: controller.signal }).catch(() => undefined);
    await expect.poll(() => upstream.chatRequests.length, { timeout: 10_000 }).toBeGreaterThan(before);
    const busy = await sdk(b, KEYS[0]).models.list().catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(OpenAI.RateLimitError);
    expect((busy as InstanceType<typeof OpenAI.RateLimitError>).code).toBe("concurrency_limit");
    // Another key is not held back.
    expect((await models(b, KEYS[1] as string)).status).toBe(200);
    controller.abort();
    await hanging;
  }, 120_000);

  it("a key limited to one request at once is never refused for requests one after another, whichever replica serves them", async () => {
    const [a, b] = await Promise.all([replica("sa", limits), replica("sb", limits)]);
    const key = KEYS[1] as string;
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await models(i % 2 === 0 ? a : b, key)).status);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  }, 120_000);

  it("counts a key's requests a minute over both replicas", async () => {
    const perMinute = { apiKeys: KEYS, maxRequestsPerMinute: 4 };
    const [a, b] = await Promise.all([replica("ra", perMinute), replica("rb", perMinute)]);
    const key = KEYS[2] as string;
    // The window is the clock's minute: start well inside one.
    if (new Date().getSeconds() > 50) await new Promise((resolve) => setTimeout(resolve, (61 - new Date().getSeconds()) * 1000));
    const statuses = [];
    for (const replica of [a, b, a, b]) statuses.push((await models(replica, key)).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
    const refused = await models(a, key);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("rate_limit");
  }, 120_000);
});

describe("Redis dying mid-stream", () => {
  it("streams under way finish (the stored response's loss said in one error event after its content), requests meanwhile get a 503 at once, an approval waiting through the outage is still answered through the other replica, and service resumes without a restart", async () => {
    const [a, b] = await Promise.all([replica("ma", {}, false), replica("mb", {}, false)]);
    let resume = (): void => undefined;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    const before = upstream.chatRequests.length;
    upstream.push({ text: "Stored answers survive a lost store.", stallAfterChunks: 3, resumeOn: resumed }, { text: "Chat answers survive too.", stallAfterChunks: 3, resumeOn: resumed });
    const responseEvents: { type: string; code?: string; message?: string; delta?: string }[] = [];
    const responseStream = await sdk(a).responses.create({ model: DEFAULT_VLLM_MODEL, input: "hi", stream: true, store: true });
    const responseDone = (async () => {
      for await (const event of responseStream) responseEvents.push(event as (typeof responseEvents)[number]);
    })();
    await expect.poll(() => upstream.chatRequests.length, { timeout: 20_000 }).toBe(before + 1);
    const chatStream = await sdk(a).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "hi" }], stream: true });
    let chatText = "";
    const chatDone = (async () => {
      for await (const chunk of chatStream) chatText += chunk.choices[0]?.delta.content ?? "";
    })();
    await expect.poll(() => upstream.chatRequests.length, { timeout: 20_000 }).toBe(before + 2);
    await expect.poll(() => responseEvents.some((event) => event.type === "response.output_text.delta") && chatText !== "", { timeout: 20_000 }).toBe(true);
    // And a web-chat turn waits on replica a for an approval.
    upstream.push(DATE_CALL, { text: "It is today." });
    const turn = await webTurn(a, "date?");
    const approvalId = await turn.until(/"type":"approval","id":"([^"]+)"/);
    const fingerprint = await turn.until(/"fingerprint":"([^"]+)"/);
    // How many replicas listen for answers (every replica of this file), to see them all listen again.
    const peek = createClient({ url: redis.url });
    peek.on("error", () => undefined);
    await peek.connect();
    const listening = async () => (await peek.pubSubNumSub("toolbridge:approvals"))["toolbridge:approvals"];
    const listeners = await listening();

    await redis.stop();
    try {
      // Both replicas answer new requests with a 503 of one line, without waiting for Redis.
      for (const [replica, path, body] of [
        [a, "/v1/responses", { model: DEFAULT_VLLM_MODEL, input: "hi" }],
        [b, "/v1/chat/completions", { model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "hi" }] }],
      ] as const) {
        const response = await fetch(`${replica.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(15_000) });
        expect(response.status).toBe(503);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe("store_unavailable");
      }
      resume();
      await Promise.all([responseDone, chatDone]);
    } finally {
      resume();
      await redis.restart();
    }
    // The answers streaming when Redis died reached their clients whole.
    expect(chatText).toBe("Chat answers survive too.");
    const text = responseEvents.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta).join("");
    expect(text).toBe("Stored answers survive a lost store.");
    const completed = responseEvents.findIndex((event) => event.type === "response.completed");
    expect(completed).toBeGreaterThan(-1);
    // Then one error event says the response could not be kept.
    expect(responseEvents.slice(completed + 1)).toEqual([{ type: "error", code: "store_unavailable", message: expect.stringMatching(/^Response resp_\w+ could not be stored: The gateway's store \(redis:\/\/127\.0\.0\.1:\d+\) is unavailable: [^\n]+$/), param: null }]);
    // And one log line, for whoever runs the gateway.
    expect(a.stderr().match(/"msg":"store unavailable".*could not be stored/g)?.length).toBe(1);
    expect(a.child.exitCode).toBeNull();
    expect(b.child.exitCode).toBeNull();

    // Back without a restart of either gateway.
    await expect.poll(async () => (await fetch(`${a.url}/v1/models`)).status, { timeout: 20_000, interval: 200 }).toBe(200);
    await expect.poll(async () => (await fetch(`${b.url}/v1/models`)).status, { timeout: 20_000, interval: 200 }).toBe(200);
    // The approval waiting on a through the outage (Redis came back empty) is answered through b, once both listen again.
    await expect.poll(() => listening().catch(() => 0), { timeout: 20_000, interval: 200 }).toBe(listeners);
    const answered = await fetch(`${b.url}/api/approvals`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: approvalId, fingerprint, decision: "allow-once" }) });
    expect(answered.status).toBe(200);
    expect(await turn.rest()).toContain("It is today.");
    // Stored through one, continued through the other.
    upstream.push({ text: "Hello Ada." }, { text: "Your name is Ada." });
    const first = await sdk(a).responses.create({ model: DEFAULT_VLLM_MODEL, input: "My name is Ada." });
    expect((await sdk(b).responses.create({ model: DEFAULT_VLLM_MODEL, input: "My name?", previous_response_id: first.id })).output_text).toBe("Your name is Ada.");
    for (const replica of [a, b]) expect(replica.stderr()).not.toMatch(/unhandled|uncaught|"level":"error"/i);
    await peek.quit();
  }, 120_000);
});

describe("Redis dying during a whole (non-streamed) response", () => {
  it("the model's answer is sent all the same, 200 with store: false and a header saying why, and one log line; continuing it is a 404", async () => {
    const a = await replica("wa");
    let resume = (): void => undefined;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    const before = upstream.chatRequests.length;
    upstream.push({ text: "Yours, though not kept.", stallAfterChunks: 2, resumeOn: resumed });
    const pending = sdk(a).responses.create({ model: DEFAULT_VLLM_MODEL, input: "hi", store: true }).withResponse();
    await expect.poll(() => upstream.chatRequests.length, { timeout: 20_000 }).toBe(before + 1);
    await redis.stop();
    let answered;
    try {
      resume();
      answered = await pending;
    } finally {
      resume();
      await redis.restart();
    }
    const { data, response } = answered;
    expect(response.status).toBe(200);
    expect(data.output_text).toBe("Yours, though not kept.");
    expect(data.status).toBe("completed");
    // The SDK's Response type leaves out `store`, which the API's response object has.
    expect((data as unknown as { store: unknown }).store).toBe(false);
    expect(response.headers.get("x-toolbridge-not-stored")).toMatch(
      new RegExp(`^Response ${data.id} could not be stored: The gateway's store \\(redis://127\\.0\\.0\\.1:\\d+\\) is unavailable: [ -~]+$`),
    );
    expect(a.stderr().match(/"msg":"store unavailable".*could not be stored/g)?.length).toBe(1);
    expect(a.child.exitCode).toBeNull();
    // Once Redis is back, the response is not there to continue, and the client is told so.
    await expect.poll(async () => (await fetch(`${a.url}/v1/models`)).status, { timeout: 20_000, interval: 200 }).toBe(200);
    await expect(sdk(a).responses.create({ model: DEFAULT_VLLM_MODEL, input: "and?", previous_response_id: data.id })).rejects.toMatchObject({ status: 404, code: "previous_response_not_found" });
    expect(a.stderr()).not.toMatch(/unhandled|uncaught|"level":"error"/i);
  }, 120_000);
});
