import type { CacheHint } from "@modelcontextprotocol/server";

/**
 * The caching hints (2026-07-28) of a bundled server's lists: what it lists never changes while it runs, and is
 * the same for every client, so a client may hold each list for a day (the most the spec's clients hold one) and
 * need not list it again before each model request. Reads are not hinted: the current time changes.
 */
const DAY: CacheHint = { ttlMs: 86_400_000, cacheScope: "public" };
export const STATIC_LIST_HINTS = { "tools/list": DAY, "prompts/list": DAY, "resources/list": DAY, "resources/templates/list": DAY } as const;
