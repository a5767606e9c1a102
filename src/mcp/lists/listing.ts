import { MAX_CACHE_TTL_MS } from "@modelcontextprotocol/client";
import { freshFor } from "../cache-hints.js";
import { HubError } from "../errors.js";

/** More pages than any real server sends; a server handing out a new cursor for ever stops here. */
export const MAX_LIST_PAGES = 1000;
/** More entries than any one list of a real server; bounds what a listing can hold in memory. */
export const MAX_LIST_ITEMS = 50_000;

/** A whole list, and how long it may be held as fresh (ms): its pages' shortest freshness hint. */
export interface Listing<T> {
  entries: T[];
  ttlMs: number;
}

/**
 * Reads every page of one MCP list (`tools/list`, `resources/list`, ...), bounded by pages and
 * entries: a server that answers with a fresh `nextCursor` on every page, or lists without end,
 * fails the listing with one line naming the server and the list instead of filling memory.
 */
export async function paginate<R extends { nextCursor?: string | undefined }, T>(
  where: { server: string; method: string },
  list: (params: { cursor?: string }) => Promise<R>,
  items: (result: R) => T[],
): Promise<Listing<T>> {
  const all: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let ttlMs = MAX_CACHE_TTL_MS;
  for (let page = 1; ; page++) {
    const result = await list(cursor === undefined ? {} : { cursor });
    ttlMs = Math.min(ttlMs, freshFor(result));
    const entries = items(result);
    if (all.length + entries.length > MAX_LIST_ITEMS) {
      throw new HubError("server-error", `${where.method} of server "${where.server}" lists more than ${MAX_LIST_ITEMS} entries (the limit)`, {
        server: where.server,
      });
    }
    for (const entry of entries) all.push(entry);
    cursor = result.nextCursor;
    // A server that hands back a cursor it already gave would otherwise loop forever.
    if (cursor === undefined || seen.has(cursor)) return { entries: all, ttlMs };
    if (page >= MAX_LIST_PAGES) {
      throw new HubError(
        "server-error",
        `${where.method} of server "${where.server}" still had a next page after ${MAX_LIST_PAGES} pages (the limit)`,
        { server: where.server },
      );
    }
    seen.add(cursor);
  }
}

