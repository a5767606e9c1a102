import type { ToolDefinition } from "../llm/types.js";
import {
  DEFAULT_SEARCH_RESULTS,
  SEARCH_TOOL,
  SEARCH_TOOL_NAME,
  ToolSearchIndex,
  formatSearchResult,
  type EmbeddingRanker,
  type SearchableTool,
} from "../toolcall/tool-search.js";
import type { AgentEvent, ToolCallRecord } from "./events.js";
import type { ParsedToolCall } from "./tool-arguments.js";
import type { ToolCatalog } from "./tool-host.js";
import { summarizeContent } from "./tool-result.js";

/** When tool search replaces the full tool list. */
export type ToolSearchMode = "off" | "auto" | "always";

export interface ToolSearchSettings {
  mode: ToolSearchMode;
  /** In "auto": search once more tools than this are offered. Default 40. */
  maxTools?: number;
  /** In "auto": search too once the definitions would take more prompt tokens than this. */
  maxTokens?: number;
  /** Tools offered in every request, searched or not (exposed names). */
  alwaysLoaded?: readonly string[];
  /** Tools one search loads. Default 5. */
  results?: number;
  /** Fused with the lexical ranking when set. */
  embeddings?: EmbeddingRanker;
}

export const DEFAULT_SEARCH_MAX_TOOLS = 40;

/** A rough size of tool definitions in prompt tokens (JSON at ~4 characters a token). */
export function estimateToolTokens(tools: readonly ToolDefinition[]): number {
  return Math.ceil(JSON.stringify(tools).length / 4);
}

/**
 * Which tools each request of a turn offers. Without search: all of them. With search: the
 * always-loaded ones, `search_tools`, and every tool a search of this turn found (deferred
 * loading: found tools join the following requests of the turn, in native and prompt mode).
 */
export class ToolOffer {
  private index: ToolSearchIndex | undefined;
  private indexedFrom: readonly ToolDefinition[] | undefined;

  constructor(private readonly settings: ToolSearchSettings = { mode: "auto" }) {}

  /** Whether search replaces the full list for these tools. */
  searches(tools: readonly ToolDefinition[]): boolean {
    const { mode, maxTools = DEFAULT_SEARCH_MAX_TOOLS, maxTokens } = this.settings;
    if (mode === "off" || tools.length === 0) return false;
    if (mode === "always") return true;
    return tools.length > maxTools || (maxTokens !== undefined && estimateToolTokens(tools) > maxTokens);
  }

  startTurn(catalog: ToolCatalog): TurnOffer {
    return new TurnOffer(this, catalog, this.settings);
  }

  /** The index over the catalog's tools, rebuilt only when the catalog's list changed. */
  indexFor(catalog: ToolCatalog): ToolSearchIndex {
    const definitions = catalog.toolDefinitions;
    if (this.index === undefined || this.indexedFrom !== definitions) {
      const tools: SearchableTool[] = definitions.map((d, i) => {
        const tool = catalog.tools[i];
        return { ...d, ...(tool?.title !== undefined ? { title: tool.title } : {}), ...(tool !== undefined ? { server: tool.server } : {}) };
      });
      this.index = new ToolSearchIndex(tools, this.settings.embeddings);
      this.indexedFrom = definitions;
    }
    return this.index;
  }
}

export class TurnOffer {
  private readonly loaded = new Set<string>();

  constructor(
    private readonly owner: ToolOffer,
    private readonly catalog: ToolCatalog,
    private readonly settings: ToolSearchSettings,
  ) {}

  /** The tools of the next request (the catalog refreshed by the caller). */
  definitions(): ToolDefinition[] {
    const all = this.catalog.toolDefinitions;
    if (!this.owner.searches(all)) return all;
    const always = new Set(this.settings.alwaysLoaded ?? []);
    return [...all.filter((t) => always.has(t.name) || this.loaded.has(t.name)), SEARCH_TOOL];
  }

  /** A call of the search tool (and not of a server's own tool of that name). */
  isSearch(name: string): boolean {
    return name === SEARCH_TOOL_NAME && this.catalog.get(name) === undefined;
  }

  /** Runs one search, loads what it found for the rest of the turn, and says so to the model. */
  async search({ call, args }: ParsedToolCall, emit: (event: AgentEvent) => void): Promise<ToolCallRecord> {
    const started = performance.now();
    const query = args.ok && typeof args.arguments.query === "string" ? args.arguments.query.trim() : "";
    emit({ type: "tool-call-started", id: call.id, name: call.name, arguments: args.ok ? args.arguments : call.arguments });
    let record: Omit<ToolCallRecord, "durationMs">;
    const base = { id: call.id, name: call.name, rawArguments: call.arguments, ...(args.ok ? { arguments: args.arguments } : {}) };
    if (query === "") {
      record = { ...base, outcome: "invalid-arguments", isError: true, content: `${SEARCH_TOOL_NAME} needs one string argument, "query": what you want to do.` };
    } else {
      const index = this.owner.indexFor(this.catalog);
      const names = await index.search(query, this.settings.results ?? DEFAULT_SEARCH_RESULTS);
      const found = names.flatMap((name) => index.get(name) ?? []);
      for (const tool of found) this.loaded.add(tool.name);
      record = { ...base, outcome: "ok", isError: false, content: formatSearchResult(query, found) };
    }
    const full: ToolCallRecord = { ...record, durationMs: performance.now() - started };
    emit({
      type: "tool-call-finished",
      id: call.id,
      name: call.name,
      summary: summarizeContent(full.content),
      isError: full.isError,
      durationMs: full.durationMs,
      outcome: full.outcome,
    });
    return full;
  }
}

/** Runs one reply's calls: searches here, the rest through `run`; records come back in the model's order. */
export async function runWithToolSearch(
  calls: readonly ParsedToolCall[],
  offer: TurnOffer,
  emit: (event: AgentEvent) => void,
  run: (calls: readonly ParsedToolCall[]) => Promise<ToolCallRecord[]>,
): Promise<ToolCallRecord[]> {
  const others = calls.filter((c) => !offer.isSearch(c.call.name));
  if (others.length === calls.length) return run(calls);
  const [searched, ran] = await Promise.all([
    Promise.all(calls.filter((c) => offer.isSearch(c.call.name)).map((c) => offer.search(c, emit))),
    run(others),
  ]);
  const byCall = new Map<ParsedToolCall, ToolCallRecord>();
  calls.filter((c) => offer.isSearch(c.call.name)).forEach((c, i) => byCall.set(c, searched[i] as ToolCallRecord));
  others.forEach((c, i) => byCall.set(c, ran[i] as ToolCallRecord));
  return calls.map((c) => byCall.get(c) as ToolCallRecord);
}
