import { MAX_CACHE_TTL_MS, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";

/**
 * The 2026-07-28 spec's caching hints on list and read results: `ttlMs`, how long the result may
 * be held as fresh, and `cacheScope`, who may share it. A server MUST send a whole number of
 * milliseconds from 0 and "public" or "private"; v2's client refuses the whole result otherwise.
 */

/**
 * How long a result may be held as fresh (ms), read as v2's client reads its `ttlMs`: at most
 * MAX_CACHE_TTL_MS (24 h); absent or not above 0, 0 ("immediately stale").
 */
export function freshFor(result: unknown): number {
  const ttlMs = typeof result === "object" && result !== null ? (result as { ttlMs?: unknown }).ttlMs : undefined;
  return typeof ttlMs === "number" && ttlMs > 0 ? Math.min(ttlMs, MAX_CACHE_TTL_MS) : 0;
}

/** The results that carry hints (server/discover's v2 repairs itself), and how many unanswered requests are remembered. */
const CACHEABLE = new Set(["tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"]);
const MAX_PENDING = 1000;

/**
 * Watches what `transport` sends, and returns what to do with each message that arrives: the
 * answer to a request for a cacheable result whose hint the spec does not allow (a negative,
 * fractional or unsafe ttlMs, one that is no number, an unknown cacheScope) gets the spec's
 * default for it instead, with one log line: a bad hint costs the caching, not the list.
 */
export function usableHints(transport: Transport, log: (line: string) => void): (message: JSONRPCMessage) => JSONRPCMessage {
  const pending = new Map<string | number, string>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ("method" in message && "id" in message && CACHEABLE.has(message.method)) {
      pending.set(message.id, message.method);
      // Requests that were never answered are forgotten, oldest first.
      if (pending.size > MAX_PENDING) pending.delete(pending.keys().next().value as string | number);
    }
    return send(message, options);
  };
  return (message) => {
    if ("method" in message || !("id" in message) || message.id === undefined) return message;
    const method = pending.get(message.id);
    if (method === undefined) return message;
    pending.delete(message.id);
    const result = "result" in message && typeof message.result === "object" && message.result !== null ? (message.result as Record<string, unknown>) : undefined;
    if (!result) return message;
    const repaired: Record<string, unknown> = {};
    if ("ttlMs" in result && !(Number.isSafeInteger(result.ttlMs) && (result.ttlMs as number) >= 0)) repaired.ttlMs = 0;
    if ("cacheScope" in result && result.cacheScope !== "public" && result.cacheScope !== "private") repaired.cacheScope = "private";
    if (Object.keys(repaired).length === 0) return message;
    const what = Object.keys(repaired).map((key) => `${key} ${String(JSON.stringify(result[key])).slice(0, 40)}`);
    log(`${method}: ignored the caching hint ${what.join(" and ")}, which the spec does not allow: taken as ${JSON.stringify(repaired)}`);
    return { ...message, result: { ...result, ...repaired } } as JSONRPCMessage;
  };
}
