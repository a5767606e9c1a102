import type { Client, Prompt, RequestOptions, Resource, ResourceTemplateType, ServerCapabilities, StandardSchemaV1, Tool } from "@modelcontextprotocol/client";
import { ListPromptsResultSchema, ListResourcesResultSchema, ListResourceTemplatesResultSchema, ListToolsResultSchema } from "@modelcontextprotocol/core";
import type { Skill } from "@modelcontextprotocol/client/ext/skills";
import { describe } from "../connect/describe-error.js";
import { nestedDeeperThan, tooDeep } from "../json-depth.js";
import { listSkills } from "../skills.js";
import { headerDeclarationFault } from "../tool-headers.js";
import type { ServerState } from "../types.js";
import { paginate as paginateEntries, type Listing } from "./listing.js";
import { RefreshQueue } from "./refresh-queue.js";

/** The lists a server keeps: resources stand for their templates and skills too. */
export type ListKind = "tools" | "resources" | "prompts";
export const LIST_KINDS: readonly ListKind[] = ["tools", "resources", "prompts"];

/** How long a list whose listing again failed is kept before the next try: doubling from 1 s, at most 60 s. */
const RELIST_BACKOFF_MS = 1000;
const MAX_RELIST_BACKOFF_MS = 60_000;

/** A result schema that takes any result as it came, for results held to their spec schema afterwards. */
const UNPARSED: StandardSchemaV1<unknown> = { "~standard": { version: 1, vendor: "toolbridge", validate: (value) => ({ value }) } };

/** What the lists need of their connection. */
export interface ListsHost {
  readonly name: string;
  /** The client the server is reached by, if any. */
  client(): Client | undefined;
  connected(): boolean;
  transport(): ServerState["transport"];
  requestTimeoutMs(): number;
  log(line: string): void;
  /** A listing again found the list of `kind` changed, or the server said it did. */
  changed(kind: ListKind): void;
}

/**
 * One server's tools, resources (with their templates and skills) and prompts: listed page by page within
 * the caps of listing.ts, listed again on the server's change notices (coalesced) and when its caching hint
 * says a list is stale.
 */
export class ServerLists {
  tools: Tool[] = [];
  resources: Resource[] = [];
  resourceTemplates: ResourceTemplateType[] = [];
  prompts: Prompt[] = [];
  /** SEP-2640 skills, listed with the resources (a skill's files are resources, their changes announced as such). */
  skills: Skill[] = [];

  /** list_changed notifications coalesced: one listing in flight per kind, one pending. */
  private readonly refreshes = {
    tools: new RefreshQueue(() => this.refresh("tools")),
    resources: new RefreshQueue(() => this.refresh("resources")),
    prompts: new RefreshQueue(() => this.refresh("prompts")),
  };
  /**
   * When each list stops being fresh (performance.now()): a 2026-07-28 server's caching hint (its
   * result's ttlMs) says; a 2025 server's list is held until it says the list changed. So is a
   * 2026-07-28 list with no hint, or a hint of 0 (what the SDKs send unless told), where the server
   * announces its changes: listing it again before every model request would cost a round trip
   * each (18 ms with 100 tools) to learn what a change notice tells anyway.
   */
  private readonly freshUntil: Record<ListKind, number> = { tools: Infinity, resources: Infinity, prompts: Infinity };
  /** The server said the list changed since it was last listed (list_changed). */
  private readonly saidChanged: Record<ListKind, boolean> = { tools: false, resources: false, prompts: false };
  /** Listings again that failed in a row, per list: each puts the next off longer (relistDelay); a good listing or a change notice starts over. */
  private readonly relistFailures: Record<ListKind, number> = { tools: 0, resources: 0, prompts: 0 };

  constructor(private readonly host: ListsHost) {}

  /** The server said its list of `kind` changed (list_changed): it is listed again. */
  announced(kind: ListKind): void {
    this.saidChanged[kind] = true;
    this.relistFailures[kind] = 0;
    void this.refreshes[kind].request();
  }

  /** Left down for good: no lists. */
  clear(): void {
    this.tools = [];
    this.resources = [];
    this.resourceTemplates = [];
    this.prompts = [];
    this.skills = [];
  }

  /** Whether its server's caching hint says the list of `kind` it gave is no longer fresh (never so for a 2025 server's). */
  private isStale(kind: ListKind): boolean {
    return this.host.client() !== undefined && this.host.connected() && performance.now() >= this.freshUntil[kind];
  }

  /** Whether the list of `kind` is to be listed before use: stale, or being listed again (a change notice's listing). */
  needsListing(kind: ListKind): boolean {
    return this.isStale(kind) || this.refreshes[kind].busy;
  }

  /**
   * Lists `kind` again first when it is stale, or waits for the listing under way; a fresh list, or a
   * 2025 server's, is kept as it is. A failure to list is logged and the list kept.
   */
  async current(kind: ListKind): Promise<void> {
    if (this.needsListing(kind)) await this.refreshes[kind].current();
  }

  /** The first listings of a server just connected; a server whose resources or prompts listing fails still serves its tools. */
  async loadAll(client: Client, signal: AbortSignal): Promise<void> {
    // A list_changed heard while a first listing runs makes one listing after it (see RefreshQueue.during).
    const first = (kind: ListKind): Promise<void> => {
      const listing = this.load(client, kind, signal);
      this.refreshes[kind].during(listing);
      return listing;
    };
    await Promise.all([
      first("tools"),
      first("resources").catch((error: unknown) => {
        if (signal.aborted) throw error;
        this.host.log(`could not list resources: ${describe(error)}`);
      }),
      first("prompts").catch((error: unknown) => {
        if (signal.aborted) throw error;
        this.host.log(`could not list prompts: ${describe(error)}`);
      }),
    ]);
  }

  /**
   * Lists `kind` again, all its pages within requestTimeoutMs. A failure keeps the list it gave and puts the next
   * try off (relistDelay), so a server whose listing keeps failing is not asked before every model request; the
   * first failure of a run is one log line, the end of the run another.
   */
  private async refresh(kind: ListKind): Promise<void> {
    const client = this.host.client();
    if (!client) return;
    const before = JSON.stringify(this.listsOf(kind));
    const said = this.saidChanged[kind];
    this.saidChanged[kind] = false;
    const timeoutMs = this.host.requestTimeoutMs();
    const limit = AbortSignal.timeout(timeoutMs);
    try {
      await this.load(client, kind, limit);
    } catch (error) {
      const failures = ++this.relistFailures[kind];
      this.freshUntil[kind] = Math.max(this.freshUntil[kind], performance.now() + relistDelay(failures));
      if (failures === 1) {
        const why = limit.aborted ? `no answer within ${timeoutMs} ms (toolTimeoutMs)` : describe(error);
        this.host.log(
          `could not refresh ${kind}: ${why}; kept the list it gave before, and while listing it keeps failing, tries again ` +
            `${RELIST_BACKOFF_MS / 1000} s later, doubling up to ${MAX_RELIST_BACKOFF_MS / 1000} s (said once)`,
        );
      }
      return;
    }
    if (this.relistFailures[kind] > 0) {
      this.host.log(`refreshed ${kind} again after ${this.relistFailures[kind]} failed ${this.relistFailures[kind] === 1 ? "try" : "tries"}`);
      this.relistFailures[kind] = 0;
    }
    // A stale list listed again is most often the same list: announced only when it changed.
    if (!said && JSON.stringify(this.listsOf(kind)) === before) return;
    this.host.changed(kind);
  }

  private listsOf(kind: ListKind): unknown[] {
    return kind === "tools" ? this.tools : kind === "prompts" ? this.prompts : [this.resources, this.resourceTemplates, this.skills];
  }

  private async load(client: Client, kind: ListKind, signal?: AbortSignal): Promise<void> {
    const capabilities = client.getServerCapabilities() ?? {};
    const options: RequestOptions = signal ? { signal } : {};
    const server = this.host.name;
    const list = <R extends { nextCursor?: string | undefined }, T>(
      method: "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list",
      key: string,
      schema: { parse(value: unknown): R },
      items: (result: R) => T[],
    ) => paginateEntries({ server, method }, (params) => this.listPage(client, method, key, schema, params, options), items);
    const started = performance.now();
    // The shortest hint of the lists read; a list the server does not offer never goes stale.
    let ttlMs = Infinity;
    const entries = <T>(listing: Listing<T>): T[] => {
      ttlMs = Math.min(ttlMs, listing.ttlMs);
      return listing.entries;
    };
    if (kind === "tools") {
      const tools = capabilities.tools ? entries(await list("tools/list", "tools", ListToolsResultSchema, (r) => r.tools)) : [];
      this.tools = this.host.transport() === "streamable-http" && client.getProtocolEra() === "modern" ? this.withValidHeaders(tools) : tools;
    } else if (kind === "resources") {
      [this.resources, this.resourceTemplates, this.skills] = capabilities.resources
        ? await Promise.all([
            list("resources/list", "resources", ListResourcesResultSchema, (r) => r.resources).then(entries),
            list("resources/templates/list", "resourceTemplates", ListResourceTemplatesResultSchema, (r) => r.resourceTemplates).then(entries),
            // Skills are extra: a server whose skill listing fails keeps its resources.
            listSkills(client, (line) => this.host.log(line), options).catch((error: unknown) => {
              if (signal?.aborted) throw error;
              this.host.log(`could not list skills: ${describe(error)}`);
              return [];
            }),
          ])
        : [[], [], []];
    } else {
      this.prompts = capabilities.prompts ? entries(await list("prompts/list", "prompts", ListPromptsResultSchema, (r) => r.prompts)) : [];
    }
    this.freshUntil[kind] = client.getProtocolEra() === "modern" && (ttlMs > 0 || !announcesChanges(capabilities, kind)) ? started + ttlMs : Infinity;
  }

  /**
   * One page of a list, as a raw request: v2's list verbs walk every page themselves, past our
   * caps (listing.ts), and its parse recurses into each entry's schemas, so one entry nested
   * without end would overflow the stack and lose the whole list. Such entries are dropped
   * first (with a log line); the rest is then held to the spec's schema.
   */
  private async listPage<R>(
    client: Client,
    method: string,
    key: string,
    schema: { parse(value: unknown): R },
    params: { cursor?: string },
    options: RequestOptions,
  ): Promise<R> {
    const raw = await client.request({ method, params }, UNPARSED, options);
    const page = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : undefined;
    const entries = page?.[key];
    return schema.parse(Array.isArray(entries) ? { ...page, [key]: this.withinDepth(entries, method) } : raw);
  }

  /** A list's entries without those nested past MAX_JSON_DEPTH (a tool's schema, say), each dropped with a log line. */
  private withinDepth(entries: unknown[], method: string): unknown[] {
    return entries.filter((entry) => {
      if (!nestedDeeperThan(entry)) return true;
      const name = (entry as { name?: unknown }).name;
      this.host.log(`${method}: left out "${typeof name === "string" ? name : "?"}": ${tooDeep("its entry")}`);
      return false;
    });
  }

  /**
   * The tools whose x-mcp-header declarations are valid: on Streamable HTTP in 2026-07-28 a client MUST leave
   * out the others (it could not send their headers), each with a log line naming it and why.
   */
  private withValidHeaders(tools: Tool[]): Tool[] {
    return tools.filter((tool) => {
      const fault = headerDeclarationFault(tool.inputSchema);
      if (fault) this.host.log(`tools/list: left out ${JSON.stringify(tool.name)}: ${fault}`);
      return !fault;
    });
  }
}

function relistDelay(failures: number): number {
  return Math.min(RELIST_BACKOFF_MS * 2 ** Math.min(failures - 1, 16), MAX_RELIST_BACKOFF_MS);
}

/** Whether the server declares that it announces changes of its `kind` list (listChanged). */
function announcesChanges(capabilities: ServerCapabilities, kind: ListKind): boolean {
  return capabilities[kind]?.listChanged === true;
}
