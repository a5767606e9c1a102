import { createHook } from "node:async_hooks";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { createClient } from "redis";
import { afterAll, describe, expect, it } from "vitest";
import { openGatewayState, StoreUrlError } from "../../src/gateway/state/open-state.js";
import { silentLogger, type Logger } from "../../src/gateway/log.js";
import { NotStoredError, type GatewayState, type StoredResponse } from "../../src/gateway/state/state.js";
import { startRedis } from "../support/redis-server.js";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";
import { openaiClient, startHarness } from "./harness.js";

/** The gateway's state: the embedded file store, and Redis started after the gateway. */

const dir = mkdtempSync(join(tmpdir(), "toolbridge-state-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const record = (id: string): StoredResponse => ({ id, owner: "anonymous", response: { id, tools: [{ parameters: { $schema: "x", "a.b": 1 } }] }, input: [], output: [] });
const limits = { maxConcurrentPerKey: 2 };
const MIB = 2 ** 20;
/** A stored response of about `bytes` (its text alone), made by `owner`. */
const sized = (id: string, owner: string, bytes: number): StoredResponse => ({ id, owner, response: { id, text: "x".repeat(bytes) }, input: [], output: [] });
/** Keeps the lines a store logs. */
const recorder = (): Logger & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, log: (_level, message) => void lines.push(message) };
};
let cases = 0;
const fresh = (): string => {
  const base = join(dir, `case-${cases++}`);
  mkdirSync(base, { mode: 0o700 });
  return base;
};

describe("the embedded store", () => {
  it("keeps responses in private files across restarts, schema keys ($, .) included", async () => {
    const file = join(dir, "private", "store.db");
    const first = await openGatewayState({ store: `file:${file}`, defaultDirectory: "/nowhere", ttlSeconds: 60, limits, log: silentLogger });
    await first.responses.put(record("resp_1"));
    await first.close();
    expect(statSync(join(file, "resp_1.json")).mode & 0o777).toBe(0o600);
    expect(statSync(file).mode & 0o777).toBe(0o700);
    const second = await openGatewayState({ store: `file:${file}`, defaultDirectory: "/nowhere", ttlSeconds: 60, limits, log: silentLogger });
    expect(await second.responses.get("resp_1")).toEqual(record("resp_1"));
    expect(await second.responses.delete("resp_1")).toBe(true);
    expect(await second.responses.get("resp_1")).toBeUndefined();
    await second.close();
  });

  it("forgets a response once its TTL has passed", async () => {
    const state = await openGatewayState({ defaultDirectory: join(dir, "ttl.db"), ttlSeconds: 1, limits, log: silentLogger });
    await state.responses.put(record("resp_2"));
    expect(await state.responses.get("resp_2")).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(await state.responses.get("resp_2")).toBeUndefined();
    await state.close();
  });

  it("keeps within its budget and each key's share: past them a response is refused as not stored, saying which limit", async () => {
    const budget = { maxBytes: 3 * MIB, maxBytesPerKey: 2 * MIB };
    const state = await openGatewayState({ store: `file:${join(fresh(), "store")}`, defaultDirectory: "/nowhere", ttlSeconds: 60, limits, budget, log: silentLogger });
    try {
      await expect(state.responses.put(sized("resp_huge", "key-a", 2.5 * MIB))).rejects.toThrow(/^it is 2\.5 MiB, more than a key's share of the store \(2 MiB, gateway\.storeMaxBytesPerKey\)$/);
      await state.responses.put(sized("resp_a1", "key-a", 0.9 * MIB));
      await state.responses.put(sized("resp_a2", "key-a", 0.9 * MIB));
      await expect(state.responses.put(sized("resp_a3", "key-a", 0.9 * MIB))).rejects.toThrow(/this key's share of the store \(2 MiB, gateway\.storeMaxBytesPerKey\) is full/);
      await state.responses.put(sized("resp_b1", "key-b", 0.9 * MIB));
      const full = state.responses.put(sized("resp_b2", "key-b", 0.9 * MIB));
      await expect(full).rejects.toBeInstanceOf(NotStoredError);
      await expect(full).rejects.toThrow(/the store is full \(3 MiB, gateway\.storeMaxBytes\)/);
      // Deleting makes room again.
      expect(await state.responses.delete("resp_a1")).toBe(true);
      await state.responses.put(sized("resp_b2", "key-b", 0.9 * MIB));
      for (const id of ["resp_huge", "resp_a3"]) expect(await state.responses.get(id)).toBeUndefined();
      expect((await state.responses.get("resp_b2"))?.owner).toBe("key-b");
    } finally {
      await state.close();
    }
  });

  it("keeps memory: within the same budget", async () => {
    const state = await openGatewayState({ store: "memory:", defaultDirectory: "/nowhere", ttlSeconds: 60, limits, budget: { maxBytes: 2 * MIB, maxBytesPerKey: MIB }, log: silentLogger });
    await state.responses.put(sized("resp_1", "key-a", 0.6 * MIB));
    await expect(state.responses.put(sized("resp_2", "key-a", 0.6 * MIB))).rejects.toBeInstanceOf(NotStoredError);
    await state.close();
  });

  it("answers a response past the budget all the same, with store: false, and a later previous_response_id gets a clear 404", async () => {
    const state = await openGatewayState({ store: "memory:", defaultDirectory: "/nowhere", ttlSeconds: 60, limits, budget: { maxBytes: 1 * MIB, maxBytesPerKey: 64 * 1024 }, log: silentLogger });
    const harness = await startHarness({ replies: [{ text: "y".repeat(100_000) }, { text: "z".repeat(100_000) }], state });
    try {
      const sdk = openaiClient(harness);
      const { data, response } = await sdk.responses.create({ model: DEFAULT_VLLM_MODEL, input: "Write a lot." }).withResponse();
      expect(data.output_text).toHaveLength(100_000);
      expect(data).toMatchObject({ store: false });
      expect(response.headers.get("x-toolbridge-not-stored")).toMatch(/^Response resp_\w+ could not be stored: it is \d+ KiB, more than a key's share of the store \(64 KiB, gateway\.storeMaxBytesPerKey\)$/);
      await expect(sdk.responses.create({ model: DEFAULT_VLLM_MODEL, input: "More?", previous_response_id: data.id })).rejects.toMatchObject({ status: 404, code: "previous_response_not_found" });
      // Streamed: the answer whole, then one error event saying it was not stored.
      const events: { type: string; code?: string; message?: string }[] = [];
      for await (const event of await sdk.responses.create({ model: DEFAULT_VLLM_MODEL, input: "Write a lot again.", stream: true })) events.push(event as (typeof events)[number]);
      const completed = events.findIndex((event) => event.type === "response.completed");
      expect(completed).toBeGreaterThan(-1);
      expect(events.slice(completed + 1)).toEqual([{ type: "error", code: "store_unavailable", message: expect.stringMatching(/^Response resp_\w+ could not be stored: it is \d+ KiB, more than a key's share of the store \(64 KiB, gateway\.storeMaxBytesPerKey\)$/), param: null }]);
    } finally {
      await harness.close();
      await state.close();
    }
  });

  it("starts with a store that no longer fits its budget, removing those expiring soonest and saying so in one line", async () => {
    const store = `file:${join(fresh(), "store")}`;
    const first = await openGatewayState({ store, defaultDirectory: "/nowhere", ttlSeconds: 60, limits, log: silentLogger });
    for (const id of ["resp_1", "resp_2", "resp_3", "resp_4"]) await first.responses.put(sized(id, "key-a", 0.9 * MIB));
    await first.close();
    const log = recorder();
    const second = await openGatewayState({ store, defaultDirectory: "/nowhere", ttlSeconds: 60, limits, budget: { maxBytes: 2 * MIB, maxBytesPerKey: 2 * MIB }, log });
    try {
      expect(log.lines).toEqual([expect.stringMatching(/: 2 stored responses \(1\.8 MiB, those expiring soonest\) were removed to fit the budget \(2 MiB in all, gateway\.storeMaxBytes; 2 MiB per key/)]);
      expect(await second.responses.get("resp_1")).toBeUndefined();
      expect(await second.responses.get("resp_2")).toBeUndefined();
      expect((await second.responses.get("resp_4"))?.id).toBe("resp_4");
    } finally {
      await second.close();
    }
  });

  it("recovers what is whole: a record cut short (a full disk) or corrupt is skipped and named in one line, the rest loads", async () => {
    const path = join(fresh(), "store");
    const store = `file:${path}`;
    const first = await openGatewayState({ store, defaultDirectory: "/nowhere", ttlSeconds: 60, limits, log: silentLogger });
    for (const id of ["resp_cut", "resp_bad", "resp_ok"]) await first.responses.put(record(id));
    await first.close();
    const cut = join(path, "resp_cut.json");
    const whole = statSync(cut).size - readFileSync(cut, "utf8").indexOf("\n") - 1;
    truncateSync(cut, statSync(cut).size - 10);
    // Same size, broken JSON: found only when it is read, since a start reads no record's body.
    const bad = join(path, "resp_bad.json");
    writeFileSync(bad, readFileSync(bad, "utf8").replace('"tools":[', '"tools":{'));
    const log = recorder();
    const second = await openGatewayState({ store, defaultDirectory: "/nowhere", ttlSeconds: 60, limits, log });
    try {
      expect(log.lines).toEqual([`${cut} is cut short (${whole - 10} of ${whole} bytes): skipped and removed; the other stored responses are kept`]);
      expect(existsSync(cut)).toBe(false);
      expect(await second.responses.get("resp_cut")).toBeUndefined();
      expect(await second.responses.get("resp_ok")).toEqual(record("resp_ok"));
      expect(await second.responses.get("resp_bad")).toBeUndefined();
      expect(log.lines[1]).toMatch(new RegExp(`^${bad} is corrupt: .*: removed; the response is no longer stored$`));
      expect(existsSync(bad)).toBe(false);
    } finally {
      await second.close();
    }
  });

  it("moves an older version's store file (nedb) into the directory once, skipping a cut and a corrupt line with one line naming them", async () => {
    const file = join(fresh(), "gateway-store.db");
    const later = { $$date: Date.now() + 60_000 };
    const row = (id: string) => JSON.stringify({ _id: id, expiresAt: later, data: JSON.stringify(record(id)) });
    writeFileSync(
      file,
      [
        JSON.stringify({ $$indexCreated: { fieldName: "expiresAt", expireAfterSeconds: 0 } }),
        row("resp_old1"),
        "{garbage",
        row("resp_gone"),
        JSON.stringify({ $$deleted: true, _id: "resp_gone" }),
        JSON.stringify({ _id: "resp_expired", expiresAt: { $$date: Date.now() - 1000 }, data: JSON.stringify(record("resp_expired")) }),
        row("resp_old2"),
        row("resp_cut").slice(0, 40),
      ].join("\n"),
      { mode: 0o600 },
    );
    const log = recorder();
    const state = await openGatewayState({ store: `file:${file}`, defaultDirectory: "/nowhere", ttlSeconds: 60, limits, log });
    try {
      expect(log.lines).toEqual([`${file}.nedb: 2 stored responses of the older store file moved into ${file}; lines 3, 8 were not whole records and were skipped`]);
      expect(await state.responses.get("resp_old1")).toEqual(record("resp_old1"));
      expect(await state.responses.get("resp_old2")).toEqual(record("resp_old2"));
      for (const id of ["resp_gone", "resp_expired", "resp_cut"]) expect(await state.responses.get(id)).toBeUndefined();
      expect(statSync(file).isDirectory()).toBe(true);
      expect(existsSync(`${file}.nedb`)).toBe(false);
    } finally {
      await state.close();
    }
  });

  it("refuses a state directory others can write into, and never writes through a symlink planted there", async () => {
    // A world-writable $XDG_STATE_HOME whose toolbridge directory another user could write into.
    const stateHome = fresh();
    chmodSync(stateHome, 0o777);
    const toolbridge = join(stateHome, "toolbridge");
    mkdirSync(toolbridge);
    chmodSync(toolbridge, 0o777);
    const victim = join(fresh(), "victim");
    // Another user's file, shaped so that an nedb store would read it in before writing over it.
    const precious = `${JSON.stringify({ _id: "x", precious: true })}\n`;
    writeFileSync(victim, precious);
    symlinkSync(victim, join(toolbridge, "gateway-store.db~"));
    const open = () => openGatewayState({ store: `file:${join(toolbridge, "gateway-store.db")}`, defaultDirectory: "/nowhere", ttlSeconds: 60, limits, log: silentLogger });
    const tryStore = async () => {
      const state = await open();
      await state.responses.put(record("resp_secret"));
      await state.close();
    };
    await expect(tryStore()).rejects.toThrow(`${toolbridge} is writable by other users (mode 0777), who could replace ${join(toolbridge, "gateway-store.db")}: use a directory of your own`);
    expect(existsSync(join(toolbridge, "gateway-store.db"))).toBe(false);
    chmodSync(toolbridge, 0o700);
    await expect(open()).rejects.toThrow(`${stateHome} is writable by other users (mode 0777), who could replace ${join(toolbridge, "gateway-store.db")}: use a directory of your own`);
    // The store's own directory open to others.
    const shared = join(fresh(), "store");
    mkdirSync(shared, { mode: 0o700 });
    chmodSync(shared, 0o707);
    await expect(openGatewayState({ store: `file:${shared}`, defaultDirectory: "/nowhere", ttlSeconds: 60, limits, log: silentLogger })).rejects.toThrow(`${shared} is open to other users (mode 0707): make it private with chmod 700 after checking what it holds`);
    expect(readFileSync(victim, "utf8")).toBe(precious);
  });

  it("follows no symlink planted in its own directory, reading or writing", async () => {
    const path = join(fresh(), "store");
    const victim = join(fresh(), "victim");
    writeFileSync(victim, "precious\n");
    const first = await openGatewayState({ store: `file:${path}`, defaultDirectory: "/nowhere", ttlSeconds: 60, limits, log: silentLogger });
    symlinkSync(victim, join(path, "resp_1.json"));
    await first.responses.put(record("resp_1"));
    await first.close();
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(statSync(join(path, "resp_1.json")).isFile()).toBe(true);
    symlinkSync(victim, join(path, "resp_2.json"));
    const log = recorder();
    const second = await openGatewayState({ store: `file:${path}`, defaultDirectory: "/nowhere", ttlSeconds: 60, limits, log });
    expect(log.lines).toEqual([expect.stringMatching(new RegExp(`^ELOOP: .*${join(path, "resp_2.json")}'?: skipped and removed; the other stored responses are kept$`))]);
    expect(readdirSync(path)).toEqual(["resp_1.json"]);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    await second.close();
  });

  it("refuses a store URL it does not know, saying what it accepts", async () => {
    await expect(openGatewayState({ store: "mongodb://x", defaultDirectory: "/nowhere", ttlSeconds: 1, limits, log: silentLogger })).rejects.toThrow(StoreUrlError);
    await expect(openGatewayState({ store: "file:relative.db", defaultDirectory: "/nowhere", ttlSeconds: 1, limits, log: silentLogger })).rejects.toThrow("absolute path");
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
    const state = await openGatewayState({ store: "memory:", defaultDirectory: "/nowhere", ttlSeconds: 60, limits, log: silentLogger });
    await takeOnce([state, state]);
    await state.close();
  });

  it("Redis gives one to its caller once across replicas", async () => {
    const redis = await startRedis();
    const states = await Promise.all([0, 1].map(() => openGatewayState({ store: redis.url, defaultDirectory: "/nowhere", ttlSeconds: 60, limits, log: silentLogger })));
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
    const state = await openGatewayState({ store: redis.url, defaultDirectory: "/nowhere", ttlSeconds: 60, limits, log: silentLogger });
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
    const states = await Promise.all([0, 1].map(() => openGatewayState({ store: redis.url, defaultDirectory: "/nowhere", ttlSeconds: 60, limits: { maxConcurrentPerKey: CONVERSATIONS * 2 }, log: silentLogger })));
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
      // Redis holds the stored responses (and their keys' counts) and nothing else: every lease was given back.
      const counts = /^toolbridge:(response-owner|stored-(ids|sizes|bytes)):/;
      expect((await peek.keys("toolbridge:*")).filter((key) => !counts.test(key)).sort()).toEqual(ids.flat().map((id) => `toolbridge:response:${id}`).sort());
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

  it("reads no stored record past the per-key share (checked in Redis before GET), and writes none", async () => {
    const redis = await startRedis();
    const log = recorder();
    const state = await openGatewayState({ store: redis.url, defaultDirectory: "/nowhere", ttlSeconds: 60, limits, budget: { maxBytes: 4 * MIB, maxBytesPerKey: MIB }, log });
    const peek = createClient({ url: redis.url });
    try {
      await peek.connect();
      // Written by another program, or under a larger budget.
      await peek.set("toolbridge:response:resp_big", JSON.stringify(sized("resp_big", "anonymous", 3 * MIB)));
      expect(await state.responses.get("resp_big")).toBeUndefined();
      expect(log.lines).toEqual([expect.stringMatching(/^toolbridge:response:resp_big is 3 MiB, more than a stored response may be \(1 MiB, gateway\.storeMaxBytesPerKey\): not read, answered as not found$/)]);
      await expect(state.responses.put(sized("resp_2", "anonymous", 2 * MIB))).rejects.toBeInstanceOf(NotStoredError);
      expect(await peek.exists("toolbridge:response:resp_2")).toBe(0);
      await state.responses.put(sized("resp_3", "anonymous", 0.5 * MIB));
      expect((await state.responses.get("resp_3"))?.id).toBe("resp_3");
    } finally {
      await peek.quit();
      await state.close();
      await redis.stop();
    }
  }, 30_000);

  it("gives each key its share of Redis: past it, the key's responses are not stored while another key's are; a delete or an expiry frees its room", async () => {
    const redis = await startRedis();
    const state = await openGatewayState({ store: redis.url, defaultDirectory: "/nowhere", ttlSeconds: 2, limits, budget: { maxBytes: 4 * MIB, maxBytesPerKey: MIB }, log: silentLogger });
    const peek = createClient({ url: redis.url });
    try {
      await peek.connect();
      await state.responses.put(sized("resp_a1", "key-a", 0.4 * MIB));
      await state.responses.put(sized("resp_a2", "key-a", 0.4 * MIB));
      // Stored again in place of itself: counted once.
      await state.responses.put(sized("resp_a2", "key-a", 0.4 * MIB));
      const refused = await state.responses.put(sized("resp_a3", "key-a", 0.4 * MIB)).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(NotStoredError);
      expect((refused as Error).message).toBe("this key's share of the store (1 MiB, gateway.storeMaxBytesPerKey) is full until its stored responses expire or are deleted");
      expect(await peek.exists("toolbridge:response:resp_a3")).toBe(0);
      // Another key is not held back by the first one's share.
      await state.responses.put(sized("resp_b1", "key-b", 0.4 * MIB));
      await state.responses.put(sized("resp_b2", "key-b", 0.4 * MIB));
      // A delete gives its room back.
      expect(await state.responses.delete("resp_a1")).toBe(true);
      await state.responses.put(sized("resp_a3", "key-a", 0.4 * MIB));
      await expect(state.responses.put(sized("resp_a4", "key-a", 0.4 * MIB))).rejects.toBeInstanceOf(NotStoredError);
      // So does Redis expiring them (the TTL): once they are gone, key-a stores as much again.
      await expect.poll(() => peek.exists(["toolbridge:response:resp_a2", "toolbridge:response:resp_a3"]), { timeout: 10_000, interval: 100 }).toBe(0);
      await state.responses.put(sized("resp_a5", "key-a", 0.4 * MIB));
      await state.responses.put(sized("resp_a6", "key-a", 0.4 * MIB));
      expect((await state.responses.get("resp_a6"))?.owner).toBe("key-a");
    } finally {
      await peek.quit();
      await state.close();
      await redis.stop();
    }
  }, 30_000);

  it("keeps a stored response for its TTL (Redis expires the key), then answers 404 for it", async () => {
    const redis = await startRedis();
    const state = await openGatewayState({ store: redis.url, defaultDirectory: "/nowhere", ttlSeconds: 2, limits, log: silentLogger });
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
