import { createHook } from "node:async_hooks";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { createClient } from "redis";
import { afterAll, describe, expect, it } from "vitest";
import { openGatewayState, StoreUrlError } from "../../src/gateway/open-state.js";
import { silentLogger } from "../../src/gateway/log.js";
import type { GatewayState, StoredResponse } from "../../src/gateway/state.js";
import { startRedis } from "../support/redis-server.js";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";
import { openaiClient, startHarness } from "./harness.js";

/** The gateway's state: the embedded file store, and Redis started after the gateway. */

const dir = mkdtempSync(join(tmpdir(), "toolbridge-state-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const record = (id: string): StoredResponse => ({ id, owner: "anonymous", response: { id, tools: [{ parameters: { $schema: "x", "a.b": 1 } }] }, input: [], output: [] });
const limits = { maxConcurrentPerKey: 2 };

describe("the embedded store", () => {
  it("keeps responses in a private file across restarts, schema keys ($, .) included", async () => {
    const file = join(dir, "private", "store.db");
    const first = await openGatewayState({ store: `file:${file}`, defaultFile: "/nowhere", ttlSeconds: 60, limits, log: silentLogger });
    await first.responses.put(record("resp_1"));
    await first.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "private")).mode & 0o777).toBe(0o700);
    const second = await openGatewayState({ store: `file:${file}`, defaultFile: "/nowhere", ttlSeconds: 60, limits, log: silentLogger });
    expect(await second.responses.get("resp_1")).toEqual(record("resp_1"));
    expect(await second.responses.delete("resp_1")).toBe(true);
    expect(await second.responses.get("resp_1")).toBeUndefined();
    await second.close();
  });

  it("forgets a response once its TTL has passed", async () => {
    const state = await openGatewayState({ defaultFile: join(dir, "ttl.db"), ttlSeconds: 1, limits, log: silentLogger });
    await state.responses.put(record("resp_2"));
    expect(await state.responses.get("resp_2")).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(await state.responses.get("resp_2")).toBeUndefined();
    await state.close();
  });

  it("refuses a store URL it does not know, saying what it accepts", async () => {
    await expect(openGatewayState({ store: "mongodb://x", defaultFile: "/nowhere", ttlSeconds: 1, limits, log: silentLogger })).rejects.toThrow(StoreUrlError);
    await expect(openGatewayState({ store: "file:relative.db", defaultFile: "/nowhere", ttlSeconds: 1, limits, log: silentLogger })).rejects.toThrow("absolute path");
  });
});

const APPROVAL = { id: "mcpr_1", owner: "alice", server: "time", tool: "get-date", definition: "time\u0000get-date\u0000digest", arguments: "{}" };

/** Takes the approval from every state at once, as replicas answering the same approval would, then once more; another caller's take first. */
async function takeOnce(states: GatewayState[]) {
  await states[0]?.issuedApprovals.put(APPROVAL);
  expect(await states[1]?.issuedApprovals.take("mallory", APPROVAL.id)).toBeUndefined();
  const taken = await Promise.all(states.flatMap((state) => [state.issuedApprovals.take("alice", APPROVAL.id), state.issuedApprovals.take("alice", APPROVAL.id)]));
  expect(taken.filter((approval) => approval !== undefined)).toEqual([APPROVAL]);
  expect(await states[0]?.issuedApprovals.take("alice", APPROVAL.id)).toBeUndefined();
}

describe("issued approvals", () => {
  it("the embedded store gives one to its caller once", async () => {
    const state = await openGatewayState({ store: "memory:", defaultFile: "/nowhere", ttlSeconds: 60, limits, log: silentLogger });
    await takeOnce([state, state]);
    await state.close();
  });

  it("Redis gives one to its caller once across replicas", async () => {
    const redis = await startRedis();
    const states = await Promise.all([0, 1].map(() => openGatewayState({ store: redis.url, defaultFile: "/nowhere", ttlSeconds: 60, limits, log: silentLogger })));
    try {
      await takeOnce(states);
    } finally {
      for (const state of states) await state.close();
      await redis.stop();
    }
  });
});

describe("the Redis store", () => {
  it("starts while Redis is away (503s), and serves once Redis comes up", async () => {
    const redis = await startRedis();
    await redis.stop();
    const state = await openGatewayState({ store: redis.url, defaultFile: "/nowhere", ttlSeconds: 60, limits, log: silentLogger });
    try {
      await expect(state.responses.get("x")).rejects.toThrow(/^The gateway's store \(redis:\/\/127\.0\.0\.1:\d+\) is unavailable: /);
      await expect(state.limits.admit("anonymous")).rejects.toThrow("unavailable");
      await redis.restart();
      await expect.poll(() => state.responses.get("x").then(() => "up", () => "down"), { timeout: 10_000, interval: 100 }).toBe("up");
      await state.responses.put(record("resp_3"));
      expect(await state.responses.get("resp_3")).toEqual(record("resp_3"));
      const one = await state.limits.admit("anonymous");
      const two = await state.limits.admit("anonymous");
      expect(await state.limits.admit("anonymous")).toEqual({ refused: "concurrency" });
      if ("release" in one) one.release();
      if ("release" in two) two.release();
    } finally {
      await state.close();
      await redis.stop();
    }
  }, 30_000);

  it("leaves nothing behind after many concurrent conversations with tool calls over two replicas: no leases in Redis, no renewal timers in the process", async () => {
    const CONVERSATIONS = 60;
    const redis = await startRedis();
    const states = await Promise.all([0, 1].map(() => openGatewayState({ store: redis.url, defaultFile: "/nowhere", ttlSeconds: 60, limits: { maxConcurrentPerKey: CONVERSATIONS * 2 }, log: silentLogger })));
    // Each request is answered by the conversation: a get-date call first, the answer once the tool has run.
    const respond = (body: { messages: { role: string }[] }) => (body.messages.at(-1)?.role === "tool" ? { text: "It is today." } : { toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }] });
    const replicas = await Promise.all(states.map((state) => startHarness({ respond, state })));
    const peek = createClient({ url: redis.url });
    // Every timer started from here on, until it fires or is cleared (an unref'd lease renewal too).
    const timers = new Map<number, string>();
    const hook = createHook({ init: (id, type) => void (type === "Timeout" && timers.set(id, new Error().stack ?? "")), destroy: (id) => void timers.delete(id) });
    try {
      await peek.connect();
      hook.enable();
      const [a, b] = replicas.map((replica) => openaiClient(replica)) as [OpenAI, OpenAI];
      const ids = await Promise.all(
        Array.from({ length: CONVERSATIONS }, async (_, index) => {
          const [first, other] = index % 2 === 0 ? [a, b] : [b, a];
          const opening = await first.responses.create({ model: DEFAULT_VLLM_MODEL, input: "What is the date?" });
          const next = await other.responses.create({ model: DEFAULT_VLLM_MODEL, input: "And again?", previous_response_id: opening.id });
          expect([opening.output_text, next.output_text]).toEqual(["It is today.", "It is today."]);
          return [opening.id, next.id];
        }),
      );
      // Every turn called the tool, and answered once it had run.
      const toolResults = replicas.flatMap((replica) => replica.upstream.chatRequests).filter((request) => (request.body.messages as { role: string }[]).at(-1)?.role === "tool");
      expect(toolResults).toHaveLength(CONVERSATIONS * 2);
      // Redis holds the stored responses and nothing else: every lease was given back.
      expect((await peek.keys("toolbridge:*")).sort()).toEqual(ids.flat().map((id) => `toolbridge:response:${id}`).sort());
      // Each replica still listens on its two channels, once.
      expect(await peek.pubSubNumSub(["toolbridge:approvals", "toolbridge:questions"])).toEqual({ "toolbridge:approvals": 2, "toolbridge:questions": 2 });
      for (const replica of replicas) await replica.close();
      // No lease is still renewed once its request has ended (the gateways' own keep-alive timers went with them).
      // Not expect.poll: its own timers would count. A timer's end is told on the next turn of the loop (setImmediate).
      for (let wait = 0; wait < 100 && timers.size > 0; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect([...timers.values()]).toEqual([]);
    } finally {
      hook.disable();
      for (const replica of replicas) await replica.close().catch(() => undefined);
      await peek.quit();
      for (const state of states) await state.close();
      await redis.stop();
    }
  }, 120_000);

  it("keeps a stored response for its TTL (Redis expires the key), then answers 404 for it", async () => {
    const redis = await startRedis();
    const state = await openGatewayState({ store: redis.url, defaultFile: "/nowhere", ttlSeconds: 2, limits, log: silentLogger });
    const harness = await startHarness({ replies: [{ text: "Hello Ada." }], state });
    const peek = createClient({ url: redis.url });
    try {
      await peek.connect();
      const sdk = openaiClient(harness);
      const response = await sdk.responses.create({ model: DEFAULT_VLLM_MODEL, input: "My name is Ada." });
      expect((await sdk.responses.retrieve(response.id)).output_text).toBe("Hello Ada.");
      const ttl = await peek.pTTL(`toolbridge:response:${response.id}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(2000);
      await expect.poll(() => peek.exists(`toolbridge:response:${response.id}`), { timeout: 10_000, interval: 100 }).toBe(0);
      await expect(sdk.responses.retrieve(response.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
      await expect(sdk.responses.create({ model: DEFAULT_VLLM_MODEL, input: "What is my name?", previous_response_id: response.id })).rejects.toMatchObject({ status: 404, code: "previous_response_not_found" });
      expect(harness.upstream.chatRequests).toHaveLength(1);
    } finally {
      await peek.quit();
      await harness.close();
      await state.close();
      await redis.stop();
    }
  }, 30_000);
});
