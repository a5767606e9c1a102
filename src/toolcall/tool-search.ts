/**
 * Tool search: a local ranked index over the offered tools, so a model with hundreds of tools
 * gets a `search_tools` tool instead of every definition. The index is BM25 (MiniSearch) over
 * each tool's name, title, description (its first sentences weighed above the rest), parameter
 * names and server name, with words cut at camelCase, snake_case and punctuation and reduced to
 * their Porter stem, so a task's words ("files", "reading") meet a tool's ("file",
 * "read_text_file"); a task's word no tool uses is searched through its synonyms. Identical
 * definitions (one server configured twice) are indexed once. Optionally an embedding ranking
 * is fused in by reciprocal rank.
 */
import MiniSearch from "minisearch";
import { stemmer } from "stemmer";
import type { ToolDefinition } from "../llm/types.js";

export const SEARCH_TOOL_NAME = "search_tools";

/** Longest query taken; the rest is dropped (hostile input). */
const MAX_QUERY_CHARS = 1000;
export const DEFAULT_SEARCH_RESULTS = 5;

/** The tool the model searches with: one string argument, `query`. */
export const SEARCH_TOOL: ToolDefinition = {
  name: SEARCH_TOOL_NAME,
  description:
    "Find tools for a task among many more than are listed. Describe what you want to do in a few words; the best matching tools become callable from your next step.",
  parameters: {
    type: "object",
    properties: { query: { type: "string", description: "What the tool should do, e.g. 'list files in a folder'" } },
    required: ["query"],
  },
};

/** A tool as the index sees it: a definition, with the MCP title and the server's name when known. */
export interface SearchableTool extends ToolDefinition {
  title?: string;
  /** The server's config key: its words (`google-maps`, `slack`) say what every tool of it is about. */
  server?: string;
}

/** One vector per input, in the inputs' order (an embedding endpoint). */
export type Embed = (inputs: readonly string[]) => Promise<number[][]>;

/** Characters of one tool's text that are embedded. */
const MAX_EMBEDDED_TEXT = 2000;

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length && i < b.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Ranks tools by meaning: each tool embedded once (cached by its text), the query at each search. */
export class EmbeddingRanker {
  private readonly vectors = new Map<string, number[]>();
  constructor(private readonly embed: Embed) {}

  private static text(tool: SearchableTool): string {
    const params = parameterText(tool);
    return [tool.name, tool.title, tool.description, params && `parameters: ${params}`].filter(Boolean).join("\n").slice(0, MAX_EMBEDDED_TEXT);
  }

  /** Tool names, best first. */
  async rank(query: string, tools: readonly SearchableTool[], limit: number): Promise<string[]> {
    const texts = tools.map(EmbeddingRanker.text);
    const missing = [...new Set(texts.filter((t) => !this.vectors.has(t)))];
    const [queryVector = [], ...fresh] = await this.embed([query, ...missing]);
    missing.forEach((text, i) => this.vectors.set(text, fresh[i] ?? []));
    const scored = tools.map((tool, i) => ({ name: tool.name, score: cosine(queryVector, this.vectors.get(texts[i] ?? "") ?? []) }));
    return scored.sort((a, b) => b.score - a.score).slice(0, limit).map((s) => s.name);
  }
}

const STOP_WORDS = new Set(
  "a an and are as at be by for from how i if in into is it me my of on or please so that the this to use using want we what when which with you your".split(" "),
);

/**
 * Words tasks and tool descriptions use for the same thing. A query word also searches for
 * the others of its group, at a lower weight: a user asks for a "folder", the tool lists a
 * "directory". Kept to the vocabulary of tool catalogs; each group is a set of equals.
 */
const SYNONYM_GROUPS = [
  "folder directory dir",
  "file document",
  "delete remove erase trash",
  "create make new add insert",
  "list enumerate show browse ls",
  "read get fetch open view load retrieve",
  "write save store put",
  "edit update modify change patch replace",
  "rename move",
  "search find query lookup look",
  "run execute exec invoke launch start",
  "stop kill terminate halt",
  "issue ticket bug",
  "pr pull merge",
  "message chat post send",
  "web page website url site browser",
  "click press tap",
  "screenshot capture snapshot",
  "image picture photo",
  "database db table sql",
  "record row entry",
  "user member person account",
  "repository repo project",
  "comment reply",
  "info information metadata detail stat",
  "download fetch crawl",
  "upload",
  "log logs output",
  "time clock date",
  "weather forecast",
  "map location place address",
  "email mail",
  "schedule calendar event meeting",
  "price cost",
  "note memo",
  "add sum plus total",
  "size big large length",
  "process program app application",
  "dialog popup alert confirm modal prompt",
  "dropdown select option choose pick",
  "window viewport resize",
  "attach upload",
  "code codebase source",
  "news internet web online",
  "request network http api traffic",
  "tab page",
  "evaluate script javascript js eval",
  "performance speed fast slow trace",
  "extract scrape parse",
  // Everyday words for what tools name in their own terms.
  "remember memorize memory recall knowledge",
  "forget delete",
  "say said tell talk message conversation history",
  "drive driving travel route directions commute distance",
  "high height altitude elevation",
  "reaction emoji thumbs",
  "count many number",
  "replica replicas scale instances",
  "pull extract",
  "screenshot image picture",
  "where locate find",
  "open create new",
  "org organization organisation company",
  "draw generate plot render chart graph",
  "markdown text content",
  "print show display read",
  "pod container",
  "enter type fill input",
  "error errors warning log",
];

const SYNONYMS = new Map<string, string[]>();
for (const group of SYNONYM_GROUPS) {
  const stems = group.split(" ").map((w) => stemmer(w));
  for (const s of stems) SYNONYMS.set(s, [...(SYNONYMS.get(s) ?? []), ...stems.filter((o) => o !== s)]);
}

/** Weight of a word the query did not say but a synonym group added. */
const SYNONYM_WEIGHT = 0.3;

/** Splits `readTextFile`, `read_text_file`, `read-text.file` and prose alike into lower-case words. */
export function toolWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
}

/**
 * `#general` names a channel: its word is a name, not what the task is about (and Porter
 * stems "general" as "generate"), so it searches as "channel". `#42` is a number, left alone.
 */
const channelsNamed = (query: string): string => query.replace(/(^|\s)#[A-Za-z][\w.-]*/g, "$1channel");

/** A text's index terms: its words, stop words dropped, each reduced to its Porter stem. */
function searchTerms(text: string): string[] {
  return toolWords(text).flatMap((w) => (STOP_WORDS.has(w) ? [] : [stemmer(w)]));
}

function parameterText(tool: ToolDefinition): string {
  const props = tool.parameters.properties;
  if (typeof props !== "object" || props === null) return "";
  return Object.keys(props).join(" ");
}

/** Characters of a description that say what the tool does; the rest is details. */
const SUMMARY_CHARS = 150;

/** A description cut at a word near SUMMARY_CHARS: what the tool does, then its details. */
function summaryAndDetails(text: string, max = SUMMARY_CHARS): { description: string; details: string } {
  const one = text.replace(/\s+/g, " ").trim();
  if (one.length <= max) return { description: one, details: "" };
  const cut = one.lastIndexOf(" ", max);
  const at = cut > 0 ? cut : max;
  return { description: one.slice(0, at), details: one.slice(at) };
}

interface Doc {
  id: number;
  name: string;
  title: string;
  description: string;
  details: string;
  params: string;
  server: string;
}

/** Tools with the same definition (one server configured twice, for two accounts) are one document. */
const signature = (tool: SearchableTool): string => `${tool.description ?? ""}\u0000${JSON.stringify(tool.parameters)}`;

export interface ToolHit {
  name: string;
  score: number;
}

export class ToolSearchIndex {
  private readonly index: MiniSearch<Doc>;
  private readonly byName = new Map<string, SearchableTool>();
  /** The tools indexed: the first of each set of identical definitions, which stands for the others. */
  private readonly indexed: SearchableTool[] = [];
  /** Every term some tool's text has. */
  private readonly vocabulary = new Set<string>();

  constructor(
    private readonly tools: readonly SearchableTool[],
    private readonly embeddings?: EmbeddingRanker,
  ) {
    this.index = new MiniSearch<Doc>({
      fields: ["name", "title", "description", "details", "params", "server"],
      tokenize: toolWords,
      processTerm: (term) => (STOP_WORDS.has(term) ? null : stemmer(term)),
      searchOptions: {
        // A long description's usage notes and examples name many things the tool is not for: they count little.
        boost: { name: 3, title: 2, params: 1.5, description: 1, server: 1, details: 0.1 },
        prefix: (term) => term.length >= 4,
        fuzzy: (term) => (term.length >= 6 ? 0.2 : 0),
      },
    });
    const seen = new Set<string>();
    for (const tool of tools) {
      this.byName.set(tool.name, tool);
      const sig = signature(tool);
      if (seen.has(sig)) continue;
      seen.add(sig);
      this.indexed.push(tool);
    }
    const docs: Doc[] = this.indexed.map((tool, id) => ({
        id,
        name: tool.name,
        title: tool.title ?? "",
        ...summaryAndDetails(tool.description ?? ""),
        params: parameterText(tool),
        server: tool.server ?? "",
      }));
    this.index.addAll(docs);
    for (const doc of docs) {
      for (const text of [doc.name, doc.title, doc.description, doc.details, doc.params, doc.server]) {
        for (const term of searchTerms(text)) this.vocabulary.add(term);
      }
    }
  }

  get size(): number {
    return this.tools.length;
  }

  get(name: string): SearchableTool | undefined {
    return this.byName.get(name);
  }

  /** The lexical ranking alone, best first. */
  lexical(query: string, limit: number): ToolHit[] {
    const said = [...new Set(searchTerms(channelsNamed(query.slice(0, MAX_QUERY_CHARS))))];
    // A word no tool uses can only be found through its synonyms, which then speak for it in full.
    const strong = new Set(said.filter((t) => !this.vocabulary.has(t)).flatMap((t) => SYNONYMS.get(t) ?? []));
    const added = [...new Set(said.flatMap((t) => SYNONYMS.get(t) ?? []))].filter((t) => !said.includes(t));
    const hits = this.index.search([...said, ...added].join(" "), {
      // The terms are processed already: one per word, in this order.
      tokenize: (text) => text.split(" "),
      processTerm: (term) => term,
      boostTerm: (term, i) => (i < said.length || strong.has(term) ? 1 : SYNONYM_WEIGHT),
    });
    return hits.slice(0, limit).map((h) => ({ name: this.indexed[h.id as number]?.name ?? "", score: h.score }));
  }

  /**
   * The best `limit` tools for a query: lexical, fused with the embedding ranking when one is
   * configured. Tools with the same definition (one server configured twice, for two
   * accounts) take one place: the first of them stands for the others.
   */
  async search(query: string, limit = DEFAULT_SEARCH_RESULTS): Promise<string[]> {
    const depth = Math.max(limit * 8, 40);
    const lexical = this.lexical(query, depth).map((h) => h.name);
    let ranked = lexical;
    if (this.embeddings !== undefined) {
      try {
        ranked = fuseRankings([lexical, await this.embeddings.rank(query.slice(0, MAX_QUERY_CHARS), this.tools, depth)]);
      } catch {
        // An embedding endpoint that is down must not cost the model its search: the lexical ranking stands.
      }
    }
    const seen = new Set<string>();
    const out: string[] = [];
    for (const name of ranked) {
      const tool = this.byName.get(name);
      const sig = tool === undefined ? name : signature(tool);
      if (seen.has(sig)) continue;
      seen.add(sig);
      out.push(name);
      if (out.length === limit) break;
    }
    return out;
  }
}

/** Reciprocal rank fusion (k = 60, as Cormack et al.): robust to the two rankings' different scales. */
export function fuseRankings(rankings: readonly (readonly string[])[]): string[] {
  const score = new Map<string, number>();
  for (const ranking of rankings) ranking.forEach((name, i) => score.set(name, (score.get(name) ?? 0) + 1 / (60 + i + 1)));
  return [...score.entries()].sort((a, b) => b[1] - a[1]).map(([name]) => name);
}

function firstSentence(text: string, max = 240): string {
  const one = text.replace(/\s+/g, " ").trim();
  const end = one.search(/[.!?](\s|$)/);
  const sentence = end > 0 ? one.slice(0, end + 1) : one;
  return sentence.length > max ? `${sentence.slice(0, max - 1)}…` : sentence;
}

/** What `search_tools` answers: the tools found, now callable, one line each. */
export function formatSearchResult(query: string, found: readonly SearchableTool[]): string {
  if (found.length === 0) return `No tools matched "${query}". Try other words for the task, or answer without tools.`;
  const lines = found.map((t) => (t.description ? `- ${t.name}: ${firstSentence(t.description)}` : `- ${t.name}`));
  return `Found ${found.length} tools; they can be called from your next step:\n${lines.join("\n")}`;
}
