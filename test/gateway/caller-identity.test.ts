import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/gateway/log.js";
import { openGatewayState } from "../../src/gateway/state/open-state.js";
import type { GatewayState } from "../../src/gateway/state/state.js";
import { startRedis, type RedisServer } from "../support/redis-server.js";
import { DEFAULT_VLLM_MODEL, type VllmReply } from "../support/vllm-server.js";
import { openaiClient, startHarness, type Harness } from "./harness.js";

/**
 * A stored response belongs to the key that made it, not to that key's place in the list:
 * keys listed in another order, or one revoked and another added, on the gateway that reads
 * the store next (the same file after a restart, or a replica on the same Redis).
 */

const ADA = "tb-ada-0123456789abcdef0123456789";
const BOB = "tb-bob-0123456789abcdef0123456789";
const CY = "tb-cy-0123456789abcdef0123456789";

const dir = mkdtempSync(join(tmpdir(), "toolbridge-identity-"));
let redis: RedisServer;
const open: { harness: Harness; state: GatewayState }[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  for (const { harness, state } of open.splice(0)) {
    await harness.close();
    await state.close();
  }
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A gateway with `keys` in that order, on `store`, whose model answers `replies`. */
async function gateway(store: string, keys: string[], replies: VllmReply[] = [], maxConcurrentPerKey = 4) {
  const state = await openGatewayState({ store, defaultDirectory: "/nowhere", ttlSeconds: 600, limits: { maxConcurrentPerKey }, log: silentLogger });
  const one = { harness: await startHarness({ apiKeys: keys, state, replies, maxConcurrentPerKey }), state };
  open.push(one);
  return {
    as: (key: string) => openaiClient(one.harness, key),
    upstream: one.harness.upstream,
    close: async () => {
      open.splice(open.indexOf(one), 1);
      await one.harness.close();
      await state.close();
    },
  };
}

/** `client` can neither read, continue nor delete response `id`. */
async function refused(client: OpenAI, id: string): Promise<void> {
  await expect(client.responses.retrieve(id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  await expect(client.responses.create({ model: DEFAULT_VLLM_MODEL, input: "and?", previous_response_id: id })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  await expect(client.responses.delete(id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
}

for (const kind of ["file", "redis"] as const) {
  describe(`on the ${kind} store`, () => {
    const store = () => (kind === "file" ? `file:${join(dir, `${Math.random().toString(36).slice(2)}.db`)}` : redis.url);

    it("the keys listed in another order: the new key-1 cannot reach the old key-1's responses, and the same key in its new place still can", async () => {
      const url = store();
      const before = await gateway(url, [ADA, BOB], [{ text: "Hello Ada." }]);
      const made = await before.as(ADA).responses.create({ model: DEFAULT_VLLM_MODEL, input: "My name is Ada." });
      // The file is one process's: the next gateway opens it after this one closed. Redis is shared by both at once.
      if (kind === "file") await before.close();
      const after = await gateway(url, [BOB, ADA], [{ text: "Your name is Ada." }]);
      await refused(after.as(BOB), made.id);
      const continued = await after.as(ADA).responses.create({ model: DEFAULT_VLLM_MODEL, input: "My name?", previous_response_id: made.id });
      expect(continued.output_text).toBe("Your name is Ada.");
      await after.as(ADA).responses.delete(made.id);
      await expect(after.as(ADA).responses.retrieve(made.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    }, 60_000);

    it("the first key revoked and another added: neither the new key-1 nor the new key reaches what the others made", async () => {
      const url = store();
      const before = await gateway(url, [ADA, BOB], [{ text: "Ada's" }, { text: "Bob's" }]);
      const ada = await before.as(ADA).responses.create({ model: DEFAULT_VLLM_MODEL, input: "mine" });
      const bob = await before.as(BOB).responses.create({ model: DEFAULT_VLLM_MODEL, input: "mine" });
      if (kind === "file") await before.close();
      // BOB is key-1 now, as ADA was; CY is key-2, as BOB was.
      const after = await gateway(url, [BOB, CY]);
      await expect(after.as(ADA).responses.retrieve(ada.id)).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
      await refused(after.as(BOB), ada.id);
      await refused(after.as(CY), bob.id);
      expect((await after.as(BOB).responses.retrieve(bob.id)).output_text).toBe("Bob's");
    }, 60_000);
  });
}

describe("requests at once, counted over replicas on one Redis", () => {
  it("are counted by key, whatever its place in each replica's list", async () => {
    const [a, b] = [await gateway(redis.url, [ADA, BOB], [{ kind: "hang" }], 1), await gateway(redis.url, [BOB, ADA], [], 1)];
    const controller = new AbortController();
    const hanging = a.as(ADA).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "wait" }] }, { signal: controller.signal }).catch(() => undefined);
    await expect.poll(() => a.upstream.chatRequests.length, { timeout: 10_000 }).toBe(1);
    // BOB is key-1 on b, as ADA is on a: not held back by ADA's request.
    expect((await b.as(BOB).models.list()).data.length).toBeGreaterThan(0);
    const busy = await b.as(ADA).models.list().catch((error: unknown) => error);
    expect(busy).toBeInstanceOf(OpenAI.RateLimitError);
    controller.abort();
    await hanging;
  }, 60_000);
});
