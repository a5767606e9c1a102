import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ToolSearchIndex } from "../../src/toolcall/tool-search.js";
import { catalogOfSize } from "../fixtures/llm/catalogs.js";

interface Query {
  query: string;
  expect: Array<[server: string, tool: string]>;
}

/** Tasks never used to tune the ranking (bench/tool-search-queries.json is the tuning set). */
const heldOut = (JSON.parse(readFileSync(new URL("./tool-search-held-out-queries.json", import.meta.url), "utf8")) as { queries: Query[] }).queries;

describe("tool search recall on held-out tasks", () => {
  it("finds a tool that does the task among the first five for at least 90% of the tasks, among 1,000 tools", async () => {
    const tools = catalogOfSize(1000);
    const byName = new Map(tools.map((t) => [t.name, t]));
    const index = new ToolSearchIndex(tools);
    const missed: string[] = [];
    for (const q of heldOut) {
      const found = await index.search(q.query, 5);
      const hit = found.some((name) => {
        const t = byName.get(name);
        return t !== undefined && q.expect.some(([server, tool]) => server === t.recordedServer && tool === t.originalName);
      });
      if (!hit) missed.push(q.query);
    }
    expect(heldOut.length).toBeGreaterThanOrEqual(50);
    expect(missed.length / heldOut.length, `missed: ${missed.join(" | ")}`).toBeLessThanOrEqual(0.1);
  });
});
