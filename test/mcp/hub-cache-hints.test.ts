import { readFileSync } from "node:fs";
import { MAX_CACHE_TTL_MS } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { freshFor } from "../../src/mcp/cache-hints.js";
import type { Hub } from "../../src/mcp/hub.js";
import type { CallToolResult } from "../../src/mcp/types.js";
import { hubPerTest } from "./hub-per-test.js";
import { fixture, waitUntil } from "./processes.js";

/**
 * The 2026-07-28 spec's caching hints: a list result's ttlMs says how long the hub may hold it.
 * test/fixtures/servers/cache-hints.mjs is a real v2 server that sets them (cacheHints) and counts
 * the list requests it gets; hostile-hints.mjs sends the hints v2's server never would.
 */

const { stderrLogFile, connect } = hubPerTest("toolbridge-cache-hints-");
const HOUR = 3_600_000;

async function counts(hub: Hub, tool = "list-counts"): Promise<Record<string, number>> {
  const result: CallToolResult = await hub.callTool(tool, {});
  const block = result.content[0];
  return JSON.parse(block?.type === "text" ? block.text : "{}") as Record<string, number>;
}

async function listEverything(hub: Hub): Promise<void> {
  await Promise.all([hub.currentTools(), hub.prompts(), hub.resources(), hub.resourceTemplates()]);
}

describe("a 2026-07-28 server's caching hints", () => {
  it("a list still fresh by its ttlMs is used again: no second tools/list, prompts/list, resources/list or resources/templates/list", async () => {
    const hub = await connect({ hints: fixture("cache-hints.mjs", "--ttl", String(HOUR)) });
    expect(hub.servers()[0]).toMatchObject({ status: "connected", protocolVersion: "2026-07-28" });
    await listEverything(hub);
    await listEverything(hub);
    expect((await hub.currentTools()).map((tool) => tool.name).sort()).toEqual(["add-tool", "list-counts"]);
    expect((await hub.prompts()).map((prompt) => prompt.name)).toEqual(["greet"]);
    expect((await hub.resources()).map((resource) => resource.uri)).toEqual(["cache://note"]);
    expect(await counts(hub)).toEqual({ "tools/list": 1, "prompts/list": 1, "resources/list": 1, "resources/templates/list": 1, "resources/read": 0 });
  }, 20_000);

  it("a resource read still fresh by its ttlMs is not read again (v2's own cache), one with ttlMs 0 is", async () => {
    for (const [ttl, reads] of [[HOUR, 1], [0, 2]] as const) {
      const hub = await connect({ hints: fixture("cache-hints.mjs", "--ttl", String(ttl)) });
      for (let read = 0; read < 2; read++) expect((await hub.readResource("cache://note")).contents).toEqual([{ uri: "cache://note", text: "a note" }]);
      expect((await counts(hub))["resources/read"]).toBe(reads);
    }
  }, 30_000);

  it("a list with ttlMs 0 of a server that announces no changes is listed again each time it is needed, once for callers asking together", async () => {
    // --quiet: no tools listChanged. Its prompts and resources do announce changes (the SDK declares it), so they are held.
    const hub = await connect({ hints: fixture("cache-hints.mjs", "--ttl", "0", "--quiet") });
    await listEverything(hub);
    await Promise.all([hub.currentTools(), hub.currentTools(), hub.currentTools(), hub.prompts(), hub.prompts()]);
    expect(await counts(hub)).toEqual({ "tools/list": 3, "prompts/list": 1, "resources/list": 1, "resources/templates/list": 1, "resources/read": 0 });
  }, 20_000);

  it("refreshTools lists stale tools again once for callers asking together, and leaves fresh ones be", async () => {
    const hub = await connect({ stale: fixture("cache-hints.mjs", "--ttl", "0", "--quiet"), fresh: fixture("cache-hints.mjs", "--ttl", String(HOUR)) });
    await Promise.all([hub.refreshTools(), hub.refreshTools(), hub.refreshTools(new AbortController().signal)]);
    expect((await counts(hub, "stale__list-counts"))["tools/list"]).toBe(2);
    expect((await counts(hub, "fresh__list-counts"))["tools/list"]).toBe(1);
  }, 20_000);

  it("a list whose ttlMs has passed is listed again", async () => {
    const hub = await connect({ hints: fixture("cache-hints.mjs", "--ttl", "200") });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await hub.currentTools();
    expect((await counts(hub))["tools/list"]).toBe(2);
  }, 20_000);

  it("listing a stale list again that came back the same announces no change", async () => {
    const hub = await connect({ hints: fixture("cache-hints.mjs", "--ttl", "0", "--quiet") });
    const changes: string[] = [];
    hub.on((event) => {
      if (event.type.endsWith("-changed")) changes.push(event.type);
    });
    const before = hub.tools();
    await listEverything(hub);
    expect((await counts(hub))["tools/list"]).toBe(2);
    expect(changes).toEqual([]);
    expect(hub.tools()).toBe(before);
  }, 20_000);

  it("a tools list with ttlMs 0 of a server that announces its changes is held until it announces one", async () => {
    const hub = await connect({ hints: fixture("cache-hints.mjs", "--ttl", "0") });
    await Promise.all([hub.currentTools(), hub.refreshTools(), hub.refreshTools()]);
    expect((await counts(hub))["tools/list"]).toBe(1);
    await hub.callTool("add-tool", { name: "later" });
    await waitUntil(() => hub.tools().some((tool) => tool.name === "later"), 10_000, "the new tool to be listed");
    expect((await counts(hub))["tools/list"]).toBe(2);
  }, 20_000);

  it("list_changed makes a list still fresh by its ttlMs listed again at once", async () => {
    const hub = await connect({ hints: fixture("cache-hints.mjs", "--ttl", String(HOUR)) });
    await hub.callTool("add-tool", { name: "later" });
    await waitUntil(() => hub.tools().some((tool) => tool.name === "later"), 10_000, "the new tool to be listed");
    expect((await hub.currentTools()).map((tool) => tool.name).sort()).toEqual(["add-tool", "later", "list-counts"]);
    expect((await counts(hub))["tools/list"]).toBe(2);
  }, 20_000);

  it("a 2025-11-25 server's list is held until the server says it changed", async () => {
    const hub = await connect({ hints: { ...fixture("cache-hints.mjs", "--ttl", "0"), protocol: "2025-11-25" } });
    expect(hub.servers()[0]).toMatchObject({ status: "connected", protocolVersion: "2025-11-25" });
    await listEverything(hub);
    expect(await counts(hub)).toEqual({ "tools/list": 1, "prompts/list": 1, "resources/list": 1, "resources/templates/list": 1, "resources/read": 0 });
  }, 20_000);
});

describe("caching hints the spec does not allow", () => {
  it.each([["-5"], ["1e308"], ["1.5"], ['"60000"'], ["null"], ["{}"]])("ttlMs %s costs the caching, not the list: taken as 0, with one log line", async (hint) => {
    const hub = await connect({ hostile: fixture("hostile-hints.mjs", hint) });
    expect(hub.servers()[0]).toMatchObject({ status: "connected", toolCount: 1 });
    await hub.currentTools();
    expect(hub.tools().map((tool) => tool.name)).toEqual(["list-counts"]);
    expect(await counts(hub)).toEqual({ "tools/list": 2 });
    const lines = readFileSync(stderrLogFile, "utf8").split("\n").filter((line) => line.includes("[hostile] tools/list: ignored the caching hint ttlMs"));
    expect(lines.at(-1)).toContain(`ttlMs ${JSON.stringify(JSON.parse(hint))}, which the spec does not allow: taken as {"ttlMs":0}`);
  }, 20_000);

  it("a ttlMs beyond a day is held a day at most, as v2's client holds it", () => {
    expect(freshFor({ ttlMs: Number.MAX_SAFE_INTEGER })).toBe(MAX_CACHE_TTL_MS);
    expect(freshFor({ ttlMs: 60_000 })).toBe(60_000);
    expect(freshFor({})).toBe(0);
  });
});
