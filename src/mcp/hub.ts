import { UriTemplate } from "@modelcontextprotocol/client";
import { SKILLS_EXTENSION_ID, type DirectoryResource } from "@modelcontextprotocol/client/ext/skills";
import type { InputRequiredResult, ServerCapabilities, Tool } from "@modelcontextprotocol/client";
import type { ServerConfig } from "../config/schema.js";
import { maskSecretsIn } from "../config/redact.js";
import { PACKAGE_VERSION } from "../version.js";
import type { OpenAuthorizationUrl } from "./auth/session.js";
import { TokenStore } from "./auth/token-store.js";
import { Connection } from "./connection.js";
import { RESTART_BACKOFF_MS } from "./connect/restarts.js";
import type { ListKind } from "./lists/server-lists.js";
import { droppedDuring } from "./request-errors.js";
import type { CreatedTask, RemoteTask } from "./tasks/ext-tasks.js";
import { HubError, toolErrorOnce } from "./errors.js";
import { RecentLogs } from "./recent-logs.js";
import { RootList, toRoots } from "./roots.js";
import { defaultStderrLogFile, ServerLog } from "./server-log.js";
import { untilAborted } from "./time-limit.js";
import { assignToolNames, toolNameAliases, type ToolRef } from "./tool-names.js";
import type {
  CallToolOptions,
  CallToolResult,
  ClientHandlers,
  CompleteRequestParams,
  CompleteResult,
  GetPromptResult,
  HubEvent,
  HubPrompt,
  HubResource,
  HubResourceTemplate,
  HubSkill,
  HubSkillEntry,
  HubTask,
  HubTool,
  LoadedSkill,
  ReadResourceResult,
  RelayedFeature,
  RelayedRound,
  Root,
  ServerState,
  TaskMode,
} from "./types.js";

export interface HubOptions {
  /** Where servers' stderr is appended; default `~/.local/state/toolbridge/servers.log` (see defaultStderrLogFile). */
  stderrLogFile?: string;
  clientInfo?: { name: string; version: string };
  /** Per server: initialize plus the first listings. Default 15 000 ms. */
  defaultStartupTimeoutMs?: number;
  /** Per tools/call (and other requests), restarted by every progress notification. Default 60 000 ms. */
  defaultToolTimeoutMs?: number;
  /** Per tools/call, however much progress it reports. Default 600 000 ms (10 minutes). */
  defaultMaxToolTimeMs?: number;
  /** Aborting it while the servers start stops them at once (see close({ terminate })); connect() then returns a closed hub. */
  signal?: AbortSignal;
  /** A listener from the start, so that each server's start-up is seen as it happens (`server-status`). */
  onEvent?: (event: HubEvent) => void;
  /**
   * Answer servers' elicitation (form and URL mode) and sampling requests; the hub declares
   * only the capabilities it has a handler for.
   */
  onElicitation?: ClientHandlers["onElicitation"];
  onUrlElicitation?: ClientHandlers["onUrlElicitation"];
  onSampling?: ClientHandlers["onSampling"];
  /**
   * The roots offered to every server without roots of its own in the config: directories
   * (resolved against `cwd`) or file: URIs. Default: `cwd`. `false` declares no roots.
   */
  roots?: readonly string[] | false;
  /** What relative roots are resolved against; default process.cwd(). */
  cwd?: string;
  /** When optional task tools run as tasks (a server's `tasks` wins); default "auto". */
  tasks?: TaskMode;
  /**
   * The directory (made 0700) where remote servers' OAuth tokens and client registrations are
   * kept, one 0600 file per server. Without it no server is logged in to: a 401 is reported.
   */
  oauthDir?: string;
  /**
   * The wait before a dropped server's first restart (a remote server's reconnection), doubling for each next one up
   * to 30 s (each server's maxRestarts bounds how many); each wait is between half of it and all of it, at random, so
   * that hubs whose server went down do not all come back at once. Default 1000 ms.
   */
  restartBackoffMs?: number;
}

/** Every connected server's tools under their exposed names, and the other names a caller may use. */
interface Registry {
  byName: Map<string, HubTool>;
  /** byName as a list: one frozen array until the registry changes, so callers may cache by identity. */
  list: readonly HubTool[];
  aliases: Map<string, HubTool>;
}

const EMPTY_REGISTRY: Registry = { byName: new Map(), list: Object.freeze([]), aliases: new Map() };

const DEFAULT_STARTUP_TIMEOUT_MS = 15_000;
const DEFAULT_TOOL_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_TOOL_TIME_MS = 10 * 60_000;

/**
 * Many MCP servers behind one object: connects them in parallel, keeps one registry of
 * tools under unique provider-legal names, and routes tool calls, resource reads and
 * prompts to the server that owns them. Announces changes as events; never prints.
 */
export class Hub {
  private readonly connections = new Map<string, Connection>();
  private readonly listeners = new Set<(event: HubEvent) => void>();
  private readonly log: ServerLog;
  private readonly recentLogs = new RecentLogs();
  /**
   * The registry, built when first read after a server connected or its tools changed: while servers start,
   * each connect and each tools list changed made it anew for every server's tools, a cost that grew with the
   * square of the servers started together; none of those registries was read before the last.
   */
  private named: Registry | undefined = EMPTY_REGISTRY;
  /** Closed, its registry emptied for good. */
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly rootList: RootList | undefined;
  private readonly cwd: string;

  private constructor(servers: Record<string, ServerConfig>, options: HubOptions) {
    this.log = new ServerLog(options.stderrLogFile ?? defaultStderrLogFile());
    if (options.onEvent) this.listeners.add(options.onEvent);
    this.cwd = options.cwd ?? process.cwd();
    const cwd = this.cwd;
    const roots = options.roots;
    this.rootList =
      roots === false
        ? undefined
        : new RootList(
            toRoots(roots ?? [cwd], cwd),
            new Map(Object.entries(servers).flatMap(([name, config]) => (config.roots ? [[name, toRoots(config.roots, cwd)] as const] : []))),
          );
    const handlers: ClientHandlers = {
      ...(options.onElicitation ? { onElicitation: options.onElicitation } : {}),
      ...(options.onUrlElicitation ? { onUrlElicitation: options.onUrlElicitation } : {}),
      ...(options.onSampling ? { onSampling: options.onSampling } : {}),
    };
    const tokens = options.oauthDir !== undefined ? new TokenStore(options.oauthDir) : undefined;
    for (const [name, config] of Object.entries(servers)) {
      const rootList = this.rootList;
      this.connections.set(
        name,
        new Connection(name, config, {
          clientInfo: options.clientInfo ?? { name: "toolbridge", version: PACKAGE_VERSION },
          startupTimeoutMs: options.defaultStartupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
          toolTimeoutMs: options.defaultToolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
          maxToolTimeMs: options.defaultMaxToolTimeMs ?? DEFAULT_MAX_TOOL_TIME_MS,
          log: this.log,
          emit: (event) => this.onConnectionEvent(event),
          handlers,
          tasks: options.tasks ?? "auto",
          restartBackoffMs: options.restartBackoffMs ?? RESTART_BACKOFF_MS,
          ...(rootList ? { roots: () => rootList.for(name) } : {}),
          ...(tokens ? { tokens } : {}),
        }),
      );
    }
  }

  /** Connects every enabled server in parallel; a server that fails is reported in servers(), never thrown. */
  static async connect(servers: Record<string, ServerConfig>, options: HubOptions = {}): Promise<Hub> {
    const { hub, ready } = Hub.start(servers, options);
    await ready;
    return hub;
  }

  /**
   * Starts connecting every enabled server and returns at once: each server's tools join
   * the registry as it connects (a "server-status" event says so), and `ready` settles when
   * every server has connected or failed, each within its startup timeout. Never rejects.
   */
  static start(servers: Record<string, ServerConfig>, options: HubOptions = {}): { hub: Hub; ready: Promise<void> } {
    const hub = new Hub(servers, options);
    const stop = (): void => void hub.close({ terminate: true });
    options.signal?.addEventListener("abort", stop, { once: true });
    if (options.signal?.aborted) stop();
    const ready = (async (): Promise<void> => {
      try {
        await Promise.all([...hub.connections.values()].map((connection) => connection.start()));
      } finally {
        options.signal?.removeEventListener("abort", stop);
      }
      if (hub.closing) await hub.closing;
      else hub.toolsChanged();
    })();
    return { hub, ready };
  }

  servers(): ServerState[] {
    return [...this.connections.values()].map((connection) => this.stateOf(connection.state));
  }

  /** The last lines a server logged (`notifications/message` at or above its logLevel), oldest first, at most 50. */
  recentLog(server: string): string[] {
    return this.recentLogs.of(server);
  }

  /** The registry: every tool of every connected server, under its exposed name, in config order. */
  tools(): readonly HubTool[] {
    return this.registry().list;
  }

  /** The registry, once every tools list its server's caching hint (2026-07-28 ttlMs) says is stale is listed again. */
  async currentTools(): Promise<readonly HubTool[]> {
    await this.current("tools");
    return this.registry().list;
  }

  /**
   * Lists again the tools of each server whose caching hint (2026-07-28 ttlMs) says its list is stale, and
   * only those: once for callers asking together, each within its server's toolTimeoutMs. A server that fails
   * or does not answer keeps the list it gave, with one line in its log, and is asked again after a back-off
   * (1 s, doubling up to 60 s) rather than at the next call; this never rejects for it. Settles at
   * once, rejecting with the reason, when `signal` aborts (the listing goes on for the others). The agent
   * awaits this before each model request (ToolHost.refreshTools).
   */
  refreshTools(signal?: AbortSignal): Promise<void> {
    return this.refresh("tools", signal);
  }

  /**
   * refreshTools for the skills (SEP-2640), listed with each server's resources on the same rule: their
   * caching hints, and a change notice's listing awaited. Only the listings: no skill's file is read for this.
   */
  refreshSkills(signal?: AbortSignal): Promise<void> {
    return this.refresh("resources", signal);
  }

  /** Calls a tool by exposed name or `server__tool`; a tool error comes back as `isError: true`, not thrown. */
  callTool(name: string, args: Record<string, unknown>, options: CallToolOptions = {}): Promise<CallToolResult> {
    return this.runTool(name, args, options) as Promise<CallToolResult>;
  }

  /**
   * callTool for a client of the hub's own, serving MCP (see RelayedRound): a server's input_required result comes
   * back as it is, and so does a task of the extension's it answers with (its requests then go through relayedTask).
   */
  relayToolCall(name: string, args: Record<string, unknown>, round: RelayedRound, options: CallToolOptions = {}): Promise<CallToolResult | InputRequiredResult | CreatedTask> {
    return this.runTool(name, args, options, round);
  }

  /** The extension's requests about a task `server` answered a relayed call with, by the server's own id; what they return is masked as results are. */
  relayedTask(server: string, taskId: string): RemoteTask {
    this.assertOpen();
    const task = this.connection(server).relayedTask(taskId);
    return { ...task, get: async () => maskSecretsIn(await task.get()), watch: (onStatus) => task.watch((now) => onStatus(maskSecretsIn(now))) };
  }

  /** Not an async function: the result is masked in one step after the connection's promise, the only step this adds to a call. */
  private runTool(name: string, args: Record<string, unknown>, options: CallToolOptions, round?: RelayedRound): Promise<CallToolResult | InputRequiredResult | CreatedTask> {
    let tool: HubTool;
    let connection: Connection;
    try {
      this.assertOpen();
      const { byName, aliases } = this.registry();
      const found = byName.get(name) ?? aliases.get(name);
      if (!found) throw this.unknownTool(name);
      tool = found;
      connection = this.connection(tool.server);
    } catch (error) {
      // Rejected, as from an async function, so callers' catch() sees it.
      return Promise.reject(error);
    }
    // Written out, not spread from options: on Node 20 each key added after a spread costs about a microsecond.
    const withProgress: CallToolOptions = { signal: options.signal, timeoutMs: options.timeoutMs, onProgress: this.progressOf(tool, options.onProgress) };
    const result = round ? connection.relayToolCall(tool.originalName, args, round, withProgress) : connection.callTool(tool.originalName, args, withProgress);
    return result.then(maskedToolResult, (error: unknown) => {
      if (!droppedDuring(error)) throw error;
      return this.afterDrop(connection, tool, args, withProgress, round, error);
    });
  }

  /**
   * A call whose server dropped under it, once the server's restarts have ended: a read-only tool
   * (annotations.readOnlyHint) is called once more on the server come back; any other is not, since it may
   * have run, and the model reads so in the result instead of an error that reads like a refusal.
   */
  private async afterDrop(
    connection: Connection,
    tool: HubTool,
    args: Record<string, unknown>,
    options: CallToolOptions,
    round: RelayedRound | undefined,
    drop: HubError,
  ): Promise<CallToolResult | InputRequiredResult | CreatedTask> {
    await (options.signal ? untilAborted(connection.settled(), options.signal) : connection.settled());
    const state = connection.state;
    const back = state.status === "connected";
    if (back && tool.annotations?.readOnlyHint === true) {
      const again = round ? connection.relayToolCall(tool.originalName, args, round, options) : connection.callTool(tool.originalName, args, options);
      return maskedToolResult(await again);
    }
    const why = state.dropped ?? "the connection closed";
    // What the process wrote last, as the drop's error quoted it: often why the call ended it.
    const stderr = /; stderr: (.*)$/.exec(drop.message)?.[1];
    const came = state.transport === "stdio" ? "restarted" : "reconnected";
    const text = back
      ? `server "${tool.server}" ${came} (${why}${stderr ? `; stderr: ${stderr}` : ""}) during this call of ${tool.name}: it may or may not have run. Check before calling it again.`
      : `server "${tool.server}" ${state.transport === "stdio" ? "stopped" : "dropped"} (${why}) during this call of ${tool.name}, which may or may not have run, and is down: ${state.error ?? state.status}`;
    return maskedToolResult({ isError: true, content: [{ type: "text", text }] });
  }

  /**
   * A call's progress handler: the caller's, then the hub's event. Returned from here, not written inline as a property:
   * esbuild (tsx) keeps a function's name by renaming it where it is made, a defineProperty on every call.
   */
  private progressOf(tool: HubTool, onProgress: CallToolOptions["onProgress"]): NonNullable<CallToolOptions["onProgress"]> {
    return (progress) => {
      onProgress?.(progress);
      this.emit({ type: "progress", server: tool.server, tool: tool.name, progress });
    };
  }

  /** Like every list below, listed again first where the server's caching hint says it is stale. */
  async resources(): Promise<HubResource[]> {
    await this.current("resources");
    return this.live().flatMap((c) => c.resources.map((resource) => ({ ...resource, server: c.name })));
  }

  async resourceTemplates(): Promise<HubResourceTemplate[]> {
    await this.current("resources");
    return this.live().flatMap((c) => c.resourceTemplates.map((template) => ({ ...template, server: c.name })));
  }

  async readResource(uri: string, server?: string): Promise<ReadResourceResult> {
    this.assertOpen();
    return maskSecretsIn(await this.resourceOwner(uri, server).readResource(uri));
  }

  async subscribe(uri: string, server?: string): Promise<void> {
    this.assertOpen();
    return this.resourceOwner(uri, server).subscribe(uri);
  }

  async unsubscribe(uri: string, server?: string): Promise<void> {
    this.assertOpen();
    return this.resourceOwner(uri, server).unsubscribe(uri);
  }

  async prompts(): Promise<HubPrompt[]> {
    await this.current("prompts");
    return this.live().flatMap((c) => c.prompts.map((prompt) => ({ ...prompt, server: c.name })));
  }

  async getPrompt(name: string, args?: Record<string, string>, server?: string): Promise<GetPromptResult> {
    this.assertOpen();
    return maskSecretsIn(await this.promptOwner(name, server).getPrompt(name, args));
  }

  /** The skills (SEP-2640) every live server lists: their names and summaries; no file of theirs is read for this. */
  skills(): HubSkill[] {
    return this.live().flatMap((c) =>
      c.skills.map((skill) => ({
        server: c.name,
        name: skill.frontmatter.name,
        description: skill.frontmatter.description,
        uri: skill.uri,
        files: skill.resources === "dynamic" ? "dynamic" : skill.resources.length,
      })),
    );
  }

  /** The skill entries every live server lists, as it listed them (listed again first where stale, as the resources); no file is read. */
  async skillEntries(): Promise<HubSkillEntry[]> {
    await this.current("resources");
    return this.live().flatMap((c) => c.skills.map((skill) => ({ ...skill, server: c.name })));
  }

  /** The children of a directory of one of `server`'s skills (`resources/directory/read`, every page). */
  async readSkillDirectory(uri: string, server: string): Promise<DirectoryResource[]> {
    this.assertOpen();
    return maskSecretsIn(await this.connection(server).readSkillDirectory(uri));
  }

  /**
   * Reads a skill's SKILL.md (or `file`, relative to the skill's folder) and verifies it against
   * the server's entry: digest, size, frontmatter, and the size bound. A refusal is a HubError
   * (`skill-refused`) with one line; nothing unverified is returned.
   */
  async loadSkill(name: string, options: { server?: string; file?: string; signal?: AbortSignal } = {}): Promise<LoadedSkill> {
    this.assertOpen();
    const { server } = options;
    if (server !== undefined) return maskSecretsIn(await this.connection(server).readSkill(name, options.file, options.signal));
    const owners = this.live().filter((c) => c.skills.some((skill) => skill.frontmatter.name === name));
    if (owners.length > 1) throw new HubError("ambiguous", `skill "${name}" is offered by ${listNames(owners.map((c) => c.name))}: name the server`);
    const owner = owners[0];
    if (!owner) {
      const known = [...new Set(this.skills().map((skill) => skill.name))];
      throw new HubError("unknown-skill", `no server offers a skill "${name}"${known.length ? ` (skills: ${listNames(known)})` : ""}`);
    }
    return maskSecretsIn(await owner.readSkill(name, options.file, options.signal));
  }

  /** getPrompt for a client of the hub's own, serving MCP (see RelayedRound). */
  async relayPrompt(name: string, args: Record<string, string> | undefined, server: string | undefined, round: RelayedRound): Promise<GetPromptResult | InputRequiredResult> {
    this.assertOpen();
    return maskSecretsIn(await this.promptOwner(name, server).relayPrompt(name, args, round));
  }

  /** The roots offered to servers without roots of their own (empty when the hub declares none). */
  roots(): Root[] {
    return this.rootList?.all() ?? [];
  }

  /**
   * Replaces the shared roots (directories or file: URIs) and sends `notifications/roots/list_changed`
   * to the servers that follow them. Throws when the hub was made with `roots: false`.
   */
  async setRoots(entries: readonly string[]): Promise<void> {
    this.assertOpen();
    if (!this.rootList) throw new HubError("unsupported", "this hub was made with roots: false");
    const changed = this.rootList.replace(toRoots(entries, this.cwd), [...this.connections.keys()]);
    await Promise.all(changed.map((name) => this.connection(name).rootsChanged()));
  }

  /** `completion/complete` for a prompt argument or a resource template variable, asked of the server that offers it. */
  async complete(params: CompleteRequestParams, server?: string): Promise<CompleteResult> {
    this.assertOpen();
    const ref = params.ref;
    if (ref.type === "ref/prompt") return this.promptOwner(ref.name, server).complete(params);
    if (server !== undefined) return this.connection(server).complete(params);
    const owner = this.live().find((c) => c.resourceTemplates.some((template) => template.uriTemplate === ref.uri));
    return (owner ?? this.resourceOwner(ref.uri, undefined)).complete(params);
  }

  /** The connected servers that declare `feature`: what the hub, served as one MCP server, can pass on. */
  serversOffering(feature: RelayedFeature): string[] {
    return [...this.connections.values()].filter((c) => c.state.status === "connected" && offersFeature(c.capabilities, feature)).map((c) => c.name);
  }

  /** Tasks on every connected server (those they list, and those this hub waits for). */
  async tasks(): Promise<HubTask[]> {
    this.assertOpen();
    const connected = [...this.connections.values()].filter((c) => c.state.status === "connected");
    return (await Promise.all(connected.map((c) => c.listTasks()))).flat();
  }

  /** One task by id, asked of `server` or of each connected server in turn. */
  async task(taskId: string, server?: string): Promise<HubTask> {
    this.assertOpen();
    if (server !== undefined) return this.connection(server).getTask(taskId);
    for (const connection of this.connections.values()) {
      if (connection.state.status !== "connected") continue;
      const found = await connection.getTask(taskId).catch(() => undefined);
      if (found) return found;
    }
    throw new HubError("unknown-task", `no connected server knows a task "${taskId}"`);
  }

  private promptOwner(name: string, server: string | undefined): Connection {
    if (server !== undefined) return this.connection(server);
    const owners = this.live().filter((c) => c.prompts.some((prompt) => prompt.name === name));
    if (owners.length > 1) {
      throw new HubError("ambiguous", `prompt "${name}" is offered by ${listNames(owners.map((c) => c.name))}: name the server`);
    }
    const owner = owners[0];
    if (!owner) {
      const known = [...new Set(this.live().flatMap((c) => c.prompts.map((prompt) => prompt.name)))];
      throw new HubError("unknown-prompt", `no server offers a prompt "${name}"${known.length ? ` (prompts: ${listNames(known)})` : ""}`);
    }
    return owner;
  }

  /** Names in a connected server's includeTools / excludeTools that its tool list does not have: usually a typo. */
  unmatchedToolFilters(): { server: string; key: "includeTools" | "excludeTools"; names: string[] }[] {
    const out: { server: string; key: "includeTools" | "excludeTools"; names: string[] }[] = [];
    for (const connection of this.connections.values()) {
      if (connection.state.status !== "connected") continue;
      const offered = new Set(connection.tools.map((tool) => tool.name));
      for (const key of ["includeTools", "excludeTools"] as const) {
        const names = (connection.config[key] ?? []).filter((name) => !offered.has(name));
        if (names.length > 0) out.push({ server: connection.name, key, names });
      }
    }
    return out;
  }

  /**
   * Logs in to a server that asked for OAuth: `open` shows the user the authorization URL; the
   * code comes back on a loopback redirect within `timeoutMs` (default 5 minutes). The server is
   * then connected, its tools in the registry.
   */
  async login(server: string, open: OpenAuthorizationUrl, timeoutMs?: number): Promise<void> {
    await this.connection(server).login(open, timeoutMs);
    this.toolsChanged();
  }

  /** Subscribes to hub events; returns the unsubscribe function. */
  on(listener: (event: HubEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Closes every transport and ends every server's process group: stdin closed, SIGTERM
   * after a grace, then SIGKILL. `terminate` (toolbridge got a signal) sends SIGTERM at
   * once. Idempotent.
   */
  close(options: { terminate?: boolean } = {}): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.connections.values()].map((connection) => connection.close(options.terminate)));
      this.named = EMPTY_REGISTRY;
      this.closed = true;
      await this.log.close();
    })();
    return this.closing;
  }

  /**
   * SIGKILLs every server process still running, synchronously: for a process 'exit'
   * handler, where close() can no longer run. Prefer close() wherever you can await.
   */
  closeSync(): void {
    for (const connection of this.connections.values()) connection.killSync();
  }

  private onConnectionEvent(event: HubEvent): void {
    if (event.type === "log") this.recentLogs.add(event.server, `${event.level}${event.logger ? ` ${event.logger}` : ""}: ${event.text}`);
    if (event.type === "tools-changed" || (event.type === "server-status" && event.state.status === "connected")) this.toolsChanged();
    this.emit(event.type === "server-status" ? { ...event, state: this.stateOf(event.state) } : event);
  }

  private emit(event: HubEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's bug must not break the hub or the other listeners.
      }
    }
  }

  /**
   * A server's state, its tool count that of the tools offered (what its includeTools and
   * excludeTools leave, as `tools` lists them), not of all it lists.
   */
  private stateOf(state: ServerState): ServerState {
    const toolCount = this.registry().list.reduce((count, tool) => count + (tool.server === state.name ? 1 : 0), 0);
    return { ...state, toolCount };
  }

  /** A server's tools changed: the registry is built again when next read (not once the hub is closed). */
  private toolsChanged(): void {
    if (!this.closed) this.named = undefined;
  }

  private registry(): Registry {
    return (this.named ??= this.buildRegistry());
  }

  private buildRegistry(): Registry {
    const entries: { ref: ToolRef; tool: Tool }[] = [];
    for (const connection of this.connections.values()) {
      const include = connection.config.includeTools;
      const exclude = new Set(connection.config.excludeTools ?? []);
      for (const tool of connection.tools) {
        if ((include && !include.includes(tool.name)) || exclude.has(tool.name)) continue;
        entries.push({ ref: { server: connection.name, name: tool.name }, tool });
      }
    }
    const exposedNames = new Map<ToolRef, string>();
    for (const [exposed, ref] of assignToolNames(entries.map((entry) => entry.ref))) exposedNames.set(ref, exposed);
    const byRef = new Map<ToolRef, HubTool>();
    // Config order, then each server's own order: what a person reading a list expects.
    for (const { ref, tool } of entries) {
      const name = exposedNames.get(ref);
      // A tool a server listed twice: naming kept its first listing.
      if (name === undefined) continue;
      const hubTool: HubTool = { name, server: ref.server, originalName: ref.name, inputSchema: tool.inputSchema };
      if (tool.title !== undefined) hubTool.title = tool.title;
      if (tool.description !== undefined) hubTool.description = tool.description;
      if (tool.outputSchema !== undefined) hubTool.outputSchema = tool.outputSchema;
      if (tool.annotations !== undefined) hubTool.annotations = tool.annotations;
      if (tool.execution !== undefined) hubTool.execution = tool.execution;
      if (tool.icons !== undefined) hubTool.icons = tool.icons;
      if (tool._meta !== undefined) hubTool._meta = tool._meta;
      byRef.set(ref, hubTool);
    }
    const byName = new Map([...byRef.values()].map((tool) => [tool.name, tool]));
    const aliases = new Map([...toolNameAliases(entries.map((entry) => entry.ref))].map(([alias, ref]) => [alias, byRef.get(ref) as HubTool]));
    return { byName, list: Object.freeze([...byName.values()]), aliases };
  }

  private unknownTool(name: string): HubError {
    const names = [...this.registry().byName.keys()];
    const unavailable = this.servers().filter((s) => s.status === "failed").map((s) => s.name);
    return new HubError(
      "unknown-tool",
      `unknown tool "${name}"; ${names.length ? `tools: ${listNames(names)}` : "no tools are available"}` +
        (unavailable.length ? ` (servers not connected: ${listNames(unavailable)})` : ""),
    );
  }

  private connection(server: string): Connection {
    const connection = this.connections.get(server);
    if (!connection) {
      throw new HubError("unknown-server", `unknown server "${server}"; servers: ${listNames([...this.connections.keys()])}`);
    }
    return connection;
  }

  /** Every connected server's list of `kind` listed again where its caching hint says it is stale. */
  private async current(kind: ListKind): Promise<void> {
    await this.relist(kind);
  }

  /** relist, settling at once when `signal` aborts. */
  private refresh(kind: ListKind, signal: AbortSignal | undefined): Promise<void> {
    const listing = this.relist(kind);
    if (!listing) return Promise.resolve();
    return signal ? untilAborted(listing, signal) : listing;
  }

  /** The listing of each stale list of `kind`, or one being listed again (see current); undefined when there is none, at no cost. */
  private relist(kind: ListKind): Promise<void> | undefined {
    const stale = [...this.connections.values()].filter((connection) => connection.lists.needsListing(kind));
    if (stale.length === 0) return undefined;
    return Promise.all(stale.map((connection) => connection.lists.current(kind))).then(() => undefined);
  }

  /** Servers whose lists are current: connected, or between a death and their restart. */
  private live(): Connection[] {
    return [...this.connections.values()].filter((c) => c.state.status === "connected" || c.state.status === "failed");
  }

  /** The server that owns a URI: the one listing it, else the one with a matching template. */
  private resourceOwner(uri: string, server: string | undefined): Connection {
    if (server !== undefined) return this.connection(server);
    const live = this.live();
    let owners = live.filter((c) => c.resources.some((resource) => resource.uri === uri));
    if (owners.length === 0) {
      owners = live.filter((c) => c.resourceTemplates.some((template) => matchesTemplate(template.uriTemplate, uri)));
    }
    if (owners.length > 1) {
      throw new HubError("ambiguous", `resource ${uri} is offered by ${listNames(owners.map((c) => c.name))}: name the server`);
    }
    const owner = owners[0];
    if (!owner) {
      const candidates = live.filter((c) => c.resources.length > 0 || c.resourceTemplates.length > 0).map((c) => c.name);
      throw new HubError(
        "unknown-resource",
        `no server lists resource ${uri}${candidates.length ? `; name the server (one of ${listNames(candidates)})` : ""}`,
      );
    }
    return owner;
  }

  private assertOpen(): void {
    if (this.closing) throw new HubError("closed", "the hub was closed");
  }
}

function offersFeature(capabilities: ServerCapabilities | undefined, feature: RelayedFeature): boolean {
  if (feature === "subscriptions") return capabilities?.resources?.subscribe === true;
  const skills = capabilities?.extensions?.[SKILLS_EXTENSION_ID] as { directoryRead?: unknown } | undefined;
  if (feature === "skills") return skills !== undefined;
  if (feature === "skill directories") return skills?.directoryRead === true;
  return capabilities?.[feature] !== undefined;
}

function matchesTemplate(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}

/** A short list for one-line errors: the first few names and how many more. */
function listNames(names: string[], max = 12): string {
  return names.length <= max ? names.join(", ") : `${names.slice(0, max).join(", ")} and ${names.length - max} more`;
}

/** A tool's answer as the hub hands it on: an error's repeated prefixes said once, and the registered secrets masked. */
function maskedToolResult(result: CallToolResult | InputRequiredResult | CreatedTask): CallToolResult | InputRequiredResult | CreatedTask {
  return maskSecretsIn("content" in result ? toolErrorOnce(result as CallToolResult) : result);
}
