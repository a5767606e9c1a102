import { randomUUID } from "node:crypto";
import { createClient } from "redis";
import type { ApprovalAnswer } from "../../agent/approval.js";
import { redactUrl } from "../../config/redact.js";
import { mebibytes } from "../../mcp/transport/json-lines.js";
import type { Logger } from "../log.js";
import type { ServerQuestion, ServerQuestionAnswer } from "../web-chat/questions.js";
import { largerThanShare, shareFull } from "./budget.js";
import { DEFAULT_STORE_BUDGET, StateUnavailableError, type AnswerRelay, type CallerLimits, type GatewayState, type IssuedApproval, type IssuedApprovals, type LimitSettings, type ResponseStore, type StoreBudget, type StoredResponse } from "./state.js";

const PREFIX = "toolbridge:";
/** One Redis command may take this long before the request it serves gets its 503. */
const COMMAND_TIMEOUT_MS = 10_000;
/** A running request holds a lease this long, renewed while it runs, so a replica that dies frees its places. */
const LEASE_MS = 30_000;
/** How long a response's end waits for its lease to be given back before it goes anyway. */
const RELEASE_WAIT_MS = 1000;
/** How long a starting gateway waits for Redis before it serves (503s until Redis answers). */
const STARTUP_WAIT_MS = 5000;
/** How long an approval or a server's question may wait for the person on the page. */
const ANSWER_WAIT_MS = 3600_000;

/**
 * Admits a request: first the caller's requests this minute (a counter that expires), then
 * its requests running now (a sorted set of leases scored by their end). 0 admitted, 1 too
 * many at once, 2 too many this minute. One script, so replicas cannot race between the steps.
 */
const ADMIT = `
if tonumber(ARGV[5]) > 0 then
  local count = redis.call('INCR', KEYS[2])
  if count == 1 then redis.call('PEXPIRE', KEYS[2], 61000) end
  if count > tonumber(ARGV[5]) then return 2 end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 1 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 0`;

/**
 * A stored response no larger than ARGV[1] bytes; otherwise its size, so that a record grown
 * past the budget (written by another program, or under a larger budget) is never read into
 * this process. One script: the size checked is the size of what is read.
 */
const GET_BOUNDED = `
local size = redis.call('STRLEN', KEYS[1])
if size > tonumber(ARGV[1]) then return size end
return redis.call('GET', KEYS[1])`;

/**
 * Stores a response within its key's share, or answers the bytes its key holds without it.
 * Each key's records are counted beside them: a sorted set of its ids by expiry, a hash of
 * their sizes, and their total, all trimmed here of what Redis has expired since (its own
 * clock, so replicas' clocks do not matter) and kept as long as the newest record; and per
 * record, its owner, for a delete to find what to take off. One script: two replicas storing
 * for one key cannot both fit in the room left for one.
 * KEYS: record, record's owner, ids by expiry, sizes, total. ARGV: id, JSON, bytes, share, TTL (ms), owner.
 */
const PUT_WITHIN_SHARE = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)) do
  redis.call('DECRBY', KEYS[5], tonumber(redis.call('HGET', KEYS[4], gone) or '0'))
  redis.call('HDEL', KEYS[4], gone)
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local held = tonumber(redis.call('GET', KEYS[5]) or '0') - tonumber(redis.call('HGET', KEYS[4], ARGV[1]) or '0')
if held + tonumber(ARGV[3]) > tonumber(ARGV[4]) then return held end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[5])
redis.call('SET', KEYS[2], ARGV[6], 'PX', ARGV[5])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[5]), ARGV[1])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[3])
redis.call('SET', KEYS[5], held + tonumber(ARGV[3]), 'PX', ARGV[5])
redis.call('PEXPIRE', KEYS[3], ARGV[5])
redis.call('PEXPIRE', KEYS[4], ARGV[5])
return -1`;

/**
 * Deletes a stored response and takes it off its key's count (found through the record's owner).
 * KEYS: record, record's owner, ids by expiry, sizes, total. ARGV: id. Returns 1 if the record was there.
 */
const DELETE_COUNTED = `
local deleted = redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[2])
local bytes = redis.call('HGET', KEYS[4], ARGV[1])
if bytes then
  redis.call('HDEL', KEYS[4], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  redis.call('DECRBY', KEYS[5], tonumber(bytes))
end
return deleted`;

/**
 * State shared by every gateway replica through one Redis: stored responses (expiring with
 * the TTL), per-key limits, and web-chat approvals and servers' questions answered on any replica. Commands are
 * never queued while Redis is away: each request gets a 503 at once, and the client
 * reconnects by itself, so service resumes when Redis is back.
 */
export async function openRedisState(options: { url: string; ttlSeconds: number; limits: LimitSettings; budget?: StoreBudget; log: Logger }): Promise<GatewayState> {
  const description = redactUrl(options.url);
  // Redis's own maxmemory bounds it in all; here, what each key stores, and the largest record read.
  const maxRecordBytes = (options.budget ?? DEFAULT_STORE_BUDGET).maxBytesPerKey;
  const unavailable = (why: string) => new StateUnavailableError(`The gateway's store (${description}) is unavailable: ${why}`);
  const reconnectStrategy = (retries: number) => Math.min(50 * 2 ** retries, 2000);
  // The client's own command timeout (5 s from queueing) is off: ours below counts only once waiting I/O was read.
  const client = createClient({ url: options.url, disableOfflineQueue: true, commandOptions: { timeout: 0 }, socket: { connectTimeout: COMMAND_TIMEOUT_MS, reconnectStrategy } });
  const subscriber = client.duplicate();
  // Logged once per outage, not once per reconnection attempt.
  let down = false;
  for (const connection of [client, subscriber]) {
    connection.on("error", (error: Error) => {
      if (down) return;
      down = true;
      options.log.log("warn", "redis unavailable", { store: description, error: error.message || error.name });
    });
  }
  /** Each relay's: registers again what waits on this replica, should Redis have come back without it (restarted empty). */
  const restorers: (() => void)[] = [];
  client.on("ready", () => {
    if (down) options.log.log("info", "redis available again", { store: description });
    down = false;
    for (const restore of restorers) restore();
  });

  async function run<T>(command: () => Promise<T>): Promise<T> {
    if (!client.isReady) throw unavailable("not connected");
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        command(),
        new Promise<never>((_, reject) => {
          // After the I/O already waiting is read: a busy process must not take its own delay for Redis's.
          timer = setTimeout(() => setImmediate(() => reject(unavailable(`no answer within ${COMMAND_TIMEOUT_MS} ms`))), COMMAND_TIMEOUT_MS);
        }),
      ]);
    } catch (error) {
      if (error instanceof StateUnavailableError) throw error;
      throw unavailable(error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
    }
  }

  const responses: ResponseStore = {
    async get(id) {
      const key = `${PREFIX}response:${id}`;
      const found = await run(() => client.eval(GET_BOUNDED, { keys: [key], arguments: [String(maxRecordBytes)] }));
      if (typeof found === "number") {
        options.log.log("warn", `${key} is ${mebibytes(found)}, more than a stored response may be (${mebibytes(maxRecordBytes)}, gateway.storeMaxBytesPerKey): not read, answered as not found`, { store: description });
        return undefined;
      }
      return found == null ? undefined : (JSON.parse(String(found)) as StoredResponse);
    },
    async put(record) {
      const text = JSON.stringify(record);
      const bytes = Buffer.byteLength(text);
      if (bytes > maxRecordBytes) throw largerThanShare(bytes, maxRecordBytes);
      const owner = encodeURIComponent(record.owner);
      const held = await run(() =>
        client.eval(PUT_WITHIN_SHARE, { keys: countedKeys(record.id, owner), arguments: [record.id, text, String(bytes), String(maxRecordBytes), String(options.ttlSeconds * 1000), owner] }),
      );
      if (held !== -1) throw shareFull(maxRecordBytes);
    },
    async delete(id) {
      const owner = await run(() => client.get(`${PREFIX}response-owner:${id}`));
      // A record without its owner (stored before keys were counted) has no count to take it off.
      if (owner == null) return (await run(() => client.del(`${PREFIX}response:${id}`))) > 0;
      return (await run(() => client.eval(DELETE_COUNTED, { keys: countedKeys(id, String(owner)), arguments: [id] }))) === 1;
    },
  };

  /** A record's keys and its owner's counts (the owner escaped, as a key's part). */
  const countedKeys = (id: string, owner: string) => [`${PREFIX}response:${id}`, `${PREFIX}response-owner:${id}`, `${PREFIX}stored-ids:${owner}`, `${PREFIX}stored-sizes:${owner}`, `${PREFIX}stored-bytes:${owner}`];

  // The caller is part of the key (each part escaped, so no two pairs make one key): another caller's take cannot use it up.
  const issuedKey = (owner: string, id: string) => `${PREFIX}issued-approval:${encodeURIComponent(owner)}:${encodeURIComponent(id)}`;
  const issuedApprovals: IssuedApprovals = {
    async put(approval) {
      await run(() => client.set(issuedKey(approval.owner, approval.id), JSON.stringify(approval), { expiration: { type: "PX", value: options.ttlSeconds * 1000 } }));
    },
    async take(owner, id) {
      // GETDEL reads and deletes in one command: two replicas taking the same approval cannot both get it.
      const text = await run(() => client.getDel(issuedKey(owner, id)));
      return text == null ? undefined : (JSON.parse(String(text)) as IssuedApproval);
    },
  };

  const limits: CallerLimits = {
    async admit(caller) {
      const running = `${PREFIX}running:${caller}`;
      const lease = randomUUID();
      const now = Date.now();
      const verdict = await run(() =>
        client.eval(ADMIT, {
          keys: [running, `${PREFIX}rate:${caller}:${Math.floor(now / 60_000)}`],
          arguments: [String(now), String(now + LEASE_MS), lease, String(options.limits.maxConcurrentPerKey), String(options.limits.maxRequestsPerMinute ?? 0), String(LEASE_MS * 2)],
        }),
      );
      if (verdict === 1) return { refused: "concurrency" };
      if (verdict === 2) return { refused: "rate" };
      const renew = setInterval(() => {
        void run(() => client.zAdd(running, { score: Date.now() + LEASE_MS, value: lease }, { condition: "XX" })).catch(() => undefined);
      }, LEASE_MS / 3);
      renew.unref();
      let released: Promise<void> | undefined;
      return {
        release: () => {
          if (released) return released;
          clearInterval(renew);
          // Should Redis be away or slow now, the lease runs out by itself.
          let timer: NodeJS.Timeout | undefined;
          released = Promise.race([
            run(() => client.zRem(running, lease)).then(() => undefined, () => undefined),
            new Promise<void>((resolve) => (timer = setTimeout(resolve, RELEASE_WAIT_MS))),
          ]).finally(() => clearTimeout(timer));
          return released;
        },
      };
    },
  };

  /** Answers of one kind: what waits is a key (holding what an answer is checked against), and answers go out on one channel. */
  const subscriptions = new Map<string, (message: string) => void>();
  function relay<Answer, Held>(kind: string): AnswerRelay<Answer, Held> {
    const key = (id: string) => `${PREFIX}${kind}:${id}`;
    const listeners: ((id: string, answer: Answer) => void)[] = [];
    /** What waits on this replica, and until when. */
    const here = new Map<string, { held: Held; until: number }>();
    const store = (id: string, held: Held, until: number, condition?: "NX") =>
      run(() => client.set(key(id), JSON.stringify(held), { ...(condition ? { condition } : {}), expiration: { type: "PX", value: Math.max(1, until - Date.now()) } }));
    restorers.push(() => {
      for (const [id, { held, until }] of here) void store(id, held, until, "NX").catch(() => undefined);
    });
    subscriptions.set(`${PREFIX}${kind}s`, (message) => {
      let parsed: { id?: unknown; answer?: Answer };
      try {
        parsed = JSON.parse(message) as typeof parsed;
      } catch {
        return;
      }
      if (typeof parsed.id !== "string" || !parsed.answer) return;
      for (const deliver of listeners) deliver(parsed.id, parsed.answer);
    });
    return {
      async register(id, held) {
        const until = Date.now() + ANSWER_WAIT_MS;
        here.set(id, { held, until });
        await store(id, held, until).catch((error: unknown) => {
          here.delete(id);
          throw error;
        });
      },
      async held(id) {
        const text = await run(() => client.get(key(id)));
        return text == null ? undefined : (JSON.parse(String(text)) as Held);
      },
      async unregister(id) {
        here.delete(id);
        await run(() => client.del(key(id))).catch(() => undefined);
      },
      async forward(id, answer) {
        // Deleting claims it, so two answers on two replicas cannot both count.
        if ((await run(() => client.del(key(id)))) === 0) return false;
        await run(() => client.publish(`${PREFIX}${kind}s`, JSON.stringify({ id, answer })));
        return true;
      },
      onAnswer(deliver) {
        listeners.push(deliver);
      },
    };
  }
  const approvals = relay<ApprovalAnswer, { caller: string; fingerprint: string }>("approval");
  const questions = relay<ServerQuestionAnswer, { caller: string; question: ServerQuestion }>("question");

  // Requests are served once Redis answers, or after a short wait (then with 503s until it does).
  const ready = new Promise<void>((resolve) => {
    client.once("ready", () => resolve());
    setTimeout(resolve, STARTUP_WAIT_MS).unref();
  });
  client.connect().catch(() => undefined);
  subscriber
    .connect()
    .then(() => Promise.all([...subscriptions].map(([channel, listener]) => subscriber.subscribe(channel, listener))))
    .catch(() => undefined);

  await ready;
  return {
    description,
    responses,
    limits,
    issuedApprovals,
    approvals,
    questions,
    async close() {
      for (const connection of [subscriber, client]) {
        if (connection.isOpen) await connection.close().catch(() => connection.destroy());
        else connection.destroy();
      }
    },
  };
}
