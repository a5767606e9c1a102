import { setTimeout as sleep } from "node:timers/promises";
import { Client, CLIENT_CAPABILITIES_META_KEY, SseError, SSEClientTransport, StreamableHTTPClientTransport, ProtocolError, ProtocolErrorCode, SdkErrorCode, SdkError, SdkHttpError, UnsupportedProtocolVersionError } from "@modelcontextprotocol/client";
import { ListPromptsResultSchema, ListResourcesResultSchema, ListResourceTemplatesResultSchema, ListToolsResultSchema, TaskStatusNotificationParamsSchema } from "@modelcontextprotocol/core";
import type { CallToolRequestOptions, CallToolRequestParams, McpSubscription, PriorDiscovery, StandardSchemaV1, RequestOptions, CallToolResult, InputRequiredResult, CompleteRequestParams, CompleteResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplateType, ServerCapabilities, SubscriptionFilter, Tool } from "@modelcontextprotocol/client";
import { redactSecrets, registerSecret } from "../config/redact.js";
import { isStdioServer, isWebSocketServer, type ProtocolSetting, type RemoteServerConfig, type ServerConfig, type StdioServerConfig } from "../config/schema.js";
import { keepArrivalOrder } from "./arrival-order.js";
import { usableHints } from "./cache-hints.js";
import { watchResponseStreams } from "./transport/cut-streams.js";
import { authenticationRequired, oauthSessionFor, type OAuthSession, type OpenAuthorizationUrl } from "./auth/session.js";
import type { TokenStore } from "./auth/token-store.js";
import { HubError, onePrefix } from "./errors.js";
import { nestedDeeperThan, tooDeep } from "./json-depth.js";
import { answerPosts } from "./transport/answer-posts.js";
import { limitedFetch } from "./transport/limited-fetch.js";
import { ownSignals } from "./transport/request-signals.js";
import { DEFAULT_MAX_MESSAGE_BYTES, MessageTooLargeError } from "./limits.js";
import { paginate as paginateEntries, type Listing } from "./listing.js";
import { RefreshQueue } from "./refresh-queue.js";
import { remoteDropOf } from "./remote-drop.js";
import { StderrTail, type ServerLog } from "./server-log.js";
import { ProcessGroupTransport } from "./transport/stdio.js";
import { untilAborted, withTimeout } from "./time-limit.js";
import { WebSocketClientTransport } from "./transport/websocket.js";
import { answerInputRequest, applyLogLevel, clientCapabilities, DEFAULT_LOG_LEVEL, registerClientFeatures, withUrlElicitations } from "./client-features.js";
import { extensionTasks, runsAsTask, sep1686Tasks, ToolTasks } from "./tasks/tasks.js";
import type { ToolTaskProtocol } from "./tasks/tasks.js";
import { createdTaskOf, RawRequests, requiresTasksExtension, serverDeclaresTasksExtension, TASKS_EXTENSION_ID, TasksExtensionClient } from "./tasks/ext-tasks.js";
import type { CreatedTask, RemoteTask } from "./tasks/ext-tasks.js";
import { listSkills, readSkillDirectory, readSkillFile } from "./skills.js";
import { headerDeclarationFault } from "./tool-headers.js";
import { callTool, compiledSchemas } from "./tool-call.js";
import type { CallToolOptions, ClientHandlers, HubEvent, HubTask, LoadedSkill, RelayedRound, Root, ServerState, TaskMode } from "./types.js";
import type { DirectoryResource, Skill } from "@modelcontextprotocol/client/ext/skills";

export interface ConnectionOptions {
  clientInfo: { name: string; version: string };
  startupTimeoutMs: number;
  toolTimeoutMs: number;
  /** Cap on one tools/call however much progress it reports. */
  maxToolTimeMs: number;
  log: ServerLog;
  emit: (event: HubEvent) => void;
  handlers: ClientHandlers;
  /** This server's roots; undefined declares no roots capability. */
  roots?: () => Root[];
  /** When optional task tools run as tasks, unless the server's config says. */
  tasks: TaskMode;
  /** Where remote servers' OAuth tokens are kept; without it no server is logged in to. */
  tokens?: TokenStore;
  /** The wait before the first restart after a drop; each next one waits twice as long, at most MAX_RESTART_DELAY_MS. */
  restartBackoffMs: number;
}

/** Consecutive restarts without one successful request in between before the hub gives up, unless the config says. */
const DEFAULT_MAX_RESTARTS = 5;
export const RESTART_BACKOFF_MS = 1000;
const MAX_RESTART_DELAY_MS = 30_000;
/** The SDK's own defaults for resuming a Streamable HTTP event stream. */
const STREAM_RECONNECTION = { initialReconnectionDelay: 1000, maxReconnectionDelay: 30_000, reconnectionDelayGrowFactor: 1.5, maxRetries: 2 };
/**
 * The Streamable HTTP event stream cut at maxMessageBytes this many times is not opened again: a server
 * that fills it without end would otherwise be read for ever. Each reopening waits STREAM_CUT_BACKOFF times longer.
 */
const MAX_STREAM_CUTS = 3;
const STREAM_CUT_BACKOFF = 2;
/** A server that printed non-JSON-RPC on stdout gets this long to answer initialize anyway. */
const GARBAGE_GRACE_MS = 1500;
/**
 * How long a stdio server gets to answer the server/discover probe (2026-07-28) before it is taken
 * for a 2025 server that ignores requests before initialize; at most half its startup time. A slow
 * 2025 server loses nothing (it answers initialize after the probe); only a slow 2026-only one would.
 */
const PROBE_TIMEOUT_MS = 5000;
/** For a server known to speak 2025-11-25 only: initialize, no probe. */
const LEGACY: PriorDiscovery = { kind: "legacy" };
const LEGACY_VERSION = "2025-11-25";
const MODERN = "2026-07-28";

/** A request's SDK options with its idle timeout always set. */
type BoundedOptions = RequestOptions & { timeout: number };

/** A result schema that takes any result as it came, for results held to their spec schema afterwards. */
const UNPARSED: StandardSchemaV1<unknown> = { "~standard": { version: 1, vendor: "toolbridge", validate: (value) => ({ value }) } };

type Transport = ProcessGroupTransport | StreamableHTTPClientTransport | SSEClientTransport | WebSocketClientTransport;
/** The lists a server keeps: resources stand for their templates and skills too. */
export type ListKind = "tools" | "resources" | "prompts";

/**
 * One MCP server: starts it (spawning a stdio child or reaching a URL), keeps its lists of
 * tools, resources and prompts, routes requests to it, restarts a stdio server that died (and
 * reconnects a remote one whose connection dropped), and ends it. Never rejects while starting: a failure becomes `status: "failed"`.
 */
export class Connection {
  readonly state: ServerState;
  tools: Tool[] = [];
  resources: Resource[] = [];
  resourceTemplates: ResourceTemplateType[] = [];
  prompts: Prompt[] = [];
  /** SEP-2640 skills, listed with the resources (a skill's files are resources, their changes announced as such). */
  skills: Skill[] = [];

  private client: Client | undefined;
  private transport: Transport | undefined;
  private starting: Promise<void> | undefined;
  /** Aborts the startup under way (timeout, garbage on stdout, close()). */
  private startup: AbortController | undefined;
  private everConnected = false;
  /** Aborted by close(): a restart's wait ends at once. */
  private readonly stopped = new AbortController();
  private restartFailures = 0;
  private gaveUp = false;
  private closing = false;
  private terminating = false;
  private reconnection: typeof STREAM_RECONNECTION | undefined;
  /** How often this session's event stream was cut at maxMessageBytes. */
  private streamCuts = 0;
  /** Why the transport last closed, when it says (a message over maxMessageBytes). */
  private closeReason: string | undefined;
  /** Why the hub took a remote server's live connection for dropped (remoteDropOf), until it connects again. */
  private dropCause: string | undefined;
  /** Why the hub ended a legacy SSE connection, for the requests it was carrying. */
  private oversized: MessageTooLargeError | undefined;
  private readonly subscriptions = new Set<string>();
  /** A 2026-07-28 server's open subscriptions/listen stream, and the opening of the next one. */
  private listener: { client: Client; subscription: McpSubscription } | undefined;
  private listening: Promise<unknown> = Promise.resolve();
  private readonly tail = new StderrTail(20);
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
  private readonly tasks: ToolTasks;
  /** The task form of the connected server: SEP-1686, or the tasks extension on a 2026-07-28 server declaring it. */
  private taskProtocol: ToolTaskProtocol = sep1686Tasks;
  /** The extension's requests on the connected server, where it declares the extension (a relayed task's go through it). */
  private extTasks: TasksExtensionClient | undefined;
  private readonly auth: OAuthSession | undefined;
  /**
   * Set when this stdio server showed it speaks 2025-11-25 only (it exited on, or did not answer,
   * server/discover): its restarts initialize at once instead of probing again.
   */
  private legacyOnly = false;
  /**
   * Set when this stdio server answered server/discover only after the probe's bound and then refused
   * 2025-11-25 (slow to start, on a loaded machine): it speaks 2026-07-28 alone, and is spoken to in it
   * from then on, its restarts given their whole start-up for the handshake.
   */
  private modernOnly = false;

  constructor(
    readonly name: string,
    readonly config: ServerConfig,
    private readonly options: ConnectionOptions,
  ) {
    this.tasks = new ToolTasks(name, options.emit, () => this.taskProtocol);
    this.state = {
      name,
      transport: isStdioServer(config) ? "stdio" : isWebSocketServer(config) ? "websocket" : config.type === "sse" ? "sse" : "streamable-http",
      status: config.disabled ? "disabled" : "connecting",
      toolCount: 0,
      resourceCount: 0,
      promptCount: 0,
      restarts: 0,
    };
    // An OAuth request gets as long as a start-up: both stand between the user and the server.
    this.auth = options.tokens ? oauthSessionFor(name, config, options.tokens, this.startupTimeoutMs) : undefined;
  }

  get startupTimeoutMs(): number {
    return this.config.startupTimeoutMs ?? this.options.startupTimeoutMs;
  }

  /** The server's toolTimeoutMs, else the hub's; also bounds reads, prompts and subscriptions. */
  get requestTimeoutMs(): number {
    return this.config.toolTimeoutMs ?? this.options.toolTimeoutMs;
  }

  /** The server's maxToolTimeMs, else the hub's. */
  get maxToolTimeMs(): number {
    return this.config.maxToolTimeMs ?? this.options.maxToolTimeMs;
  }

  /** The protocol revision this server is spoken to in: "auto" negotiates it. */
  get protocol(): ProtocolSetting {
    return this.config.protocol ?? (this.modernOnly ? MODERN : "auto");
  }

  /** How many restarts in a row (without a request answered between) before the server is left down. */
  get maxRestarts(): number {
    return this.config.maxRestarts ?? DEFAULT_MAX_RESTARTS;
  }

  /** The most bytes one message from the server may take. */
  get maxMessageBytes(): number {
    return this.config.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  /** What the server declared it offers, while a client of it is open. */
  get capabilities(): ServerCapabilities | undefined {
    return this.client?.getServerCapabilities();
  }

  /** Connects and loads the lists; never rejects. */
  start(): Promise<void> {
    if (this.state.status === "disabled") return Promise.resolve();
    this.starting ??= this.attempt().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  callTool(tool: string, args: Record<string, unknown>, options: CallToolOptions = {}): Promise<CallToolResult> {
    return this.runTool(tool, args, options) as Promise<CallToolResult>;
  }

  /**
   * callTool for a client of the hub's own (see RelayedRound): the server's input_required result comes back as it
   * is, and so does the task it answers with where the round's capabilities declare the tasks extension.
   */
  relayToolCall(tool: string, args: Record<string, unknown>, round: RelayedRound, options: CallToolOptions = {}): Promise<CallToolResult | InputRequiredResult | CreatedTask> {
    return this.runTool(tool, args, options, round);
  }

  /** The extension's requests about a task this server answered a relayed call with (its own id). */
  relayedTask(taskId: string): RemoteTask {
    const ext = (): TasksExtensionClient => {
      if (this.extTasks) return this.extTasks;
      throw new HubError("unsupported", `server "${this.name}" no longer declares the ${TASKS_EXTENSION_ID} extension`, { server: this.name });
    };
    return {
      get: () => this.request(`tasks/get ${taskId}`, {}, (_client, options) => ext().get(taskId, options)),
      update: (inputResponses) => this.request(`tasks/update ${taskId}`, {}, (_client, options) => ext().update(taskId, inputResponses, options)),
      cancel: () => this.request(`tasks/cancel ${taskId}`, {}, (_client, options) => ext().cancel(taskId, options)),
      // Its notifications where the server agrees to send them; a server without the extension now agrees to none.
      watch: (onStatus) => {
        const client = this.extTasks;
        if (!client) return { honored: Promise.resolve(false), close: async () => undefined };
        const off = client.onStatus((task) => (task.taskId === taskId ? onStatus(task) : undefined));
        const watch = client.watch(taskId, this.requestTimeoutMs);
        void watch.honored.then((agreed) => (agreed ? undefined : off()));
        return { honored: watch.honored, close: () => (off(), watch.close()) };
      },
    };
  }

  /**
   * One promise chain from the caller to the SDK's answer: the request's own checks are one step after it (see
   * request), with nothing async of this file's between. A task's wait is the exception: it spans many requests.
   */
  private runTool(tool: string, args: Record<string, unknown>, options: CallToolOptions, round?: RelayedRound): Promise<CallToolResult | InputRequiredResult | CreatedTask> {
    const max = this.maxToolTimeMs;
    // A plain call's cap is the SDK's maxTotalTimeout, checked at each progress notification, with the idle timeout
    // never above it: no timer or signal of our own on the common path.
    return this.request(`tools/call ${tool}`, options, (client, requestOptions) => this.sendToolCall(client, tool, args, options, requestOptions, round), max);
  }

  private sendToolCall(client: Client, tool: string, args: Record<string, unknown>, options: CallToolOptions, requestOptions: BoundedOptions, round?: RelayedRound): Promise<CallToolResult | InputRequiredResult | CreatedTask> {
    const listed = this.tools.find((t) => t.name === tool);
    const tasks = this.taskProtocol;
    // A relayed call of the extension's is the hub's client's to make a task or not (by declaring the extension).
    const relaysTasks = round !== undefined && tasks.serverDirected;
    if (!relaysTasks && runsAsTask(listed, this.config.tasks ?? this.options.tasks, tasks.supported(client), requestOptions.timeout, tasks.serverDirected)) {
      return this.runAsTask(client, tool, args, options, requestOptions, listed);
    }
    const relay = relayed(client, round);
    const max = this.maxToolTimeMs;
    // Written out, not spread from requestOptions: on Node 20 each key added after a spread costs about a microsecond.
    const callOptions: CallToolRequestOptions = {
      signal: requestOptions.signal,
      // The definition this hub listed: v2 checks structuredContent against its outputSchema
      // (and mirrors declared argument headers) from it, since our listing bypasses its cache.
      toolDefinition: listed,
      allowInputRequired: relay?.options.allowInputRequired,
      timeout: Math.min(requestOptions.timeout, max),
      maxTotalTimeout: max,
      resetTimeoutOnProgress: true,
      // Always a handler, so that every call asks for progress (and its idle timeout is reset by it).
      onprogress: options.onProgress ?? ignoreProgress,
    };
    const params: CallToolRequestParams = relay ? { name: tool, arguments: args, ...relay.params } : { name: tool, arguments: args };
    const onUrlElicitation = this.options.handlers.onUrlElicitation;
    // Without a handler a URL elicitation error is the call's error as it is: no retry to prepare.
    const plain = onUrlElicitation ? withUrlElicitations(() => callTool(client, params, callOptions), onUrlElicitation, this.name) : callTool(client, params, callOptions);
    // The server's task, when it made the relayed call one, comes back as it is (see relayedTask).
    if (relaysTasks) return plain.catch((error: unknown) => relayedTaskOf(error));
    // A tool the server runs only as a task says so with -32021 naming the extension: it is called again, as one
    // (as a SEP-1686 tool whose taskSupport is "required" always is).
    if (!tasks.serverDirected || !tasks.supported(client) || round) return plain;
    return plain.catch((error: unknown) => {
      if (requiresTasksExtension(error)) return this.runAsTask(client, tool, args, options, requestOptions, listed);
      throw error;
    });
  }

  /** A tool call as a task: its wait spans many requests, so its cap (maxToolTimeMs) is a signal, and its end the cap's error. */
  private runAsTask(client: Client, tool: string, args: Record<string, unknown>, options: CallToolOptions, requestOptions: BoundedOptions, listed?: Tool): Promise<CallToolResult> {
    const max = this.maxToolTimeMs;
    const cap = AbortSignal.timeout(max);
    const signal = requestOptions.signal ? AbortSignal.any([requestOptions.signal, cap]) : cap;
    return this.tasks.run(client, tool, args, { ...requestOptions, signal }, options.onProgress, listed).catch((error: unknown) => {
      if (options.signal?.aborted || !cap.aborted) throw error;
      throw this.overMaxToolTime(`tools/call ${tool}`, max, error);
    });
  }

  private overMaxToolTime(what: string, max: number, cause: unknown): HubError {
    return new HubError("timeout", `${what} on server "${this.name}" did not finish within ${max} ms (maxToolTimeMs)`, { server: this.name, cause });
  }

  /** Tasks on this server: those it lists (where it can), and those this hub started and still waits for. */
  listTasks(): Promise<HubTask[]> {
    return this.request("tasks/list", {}, (client, options) => this.tasks.list(client, options));
  }

  getTask(taskId: string): Promise<HubTask> {
    return this.request(`tasks/get ${taskId}`, {}, (client, options) => this.tasks.get(client, taskId, options));
  }

  complete(params: CompleteRequestParams): Promise<CompleteResult> {
    return this.request(`completion/complete ${params.argument.name}`, {}, (client, options) => client.complete(params, options));
  }

  /** Tells the server its roots changed (it asks for them again); a server that is not up hears at its next start. */
  async rootsChanged(): Promise<void> {
    const client = this.client;
    if (!client || this.state.status !== "connected") return;
    await client.sendRootsListChanged().catch((error: unknown) => {
      this.options.log.write(this.name, `could not send roots/list_changed: ${describe(error)}`);
    });
  }

  readResource(uri: string): Promise<ReadResourceResult> {
    return this.request(`resources/read ${uri}`, {}, (client, options) => client.readResource({ uri }, options));
  }

  /** On 2026-07-28 there is no resources/subscribe: the subscriptions/listen stream is opened again with the URI in it. */
  async subscribe(uri: string): Promise<void> {
    await this.request(`resources/subscribe ${uri}`, {}, async (client, options) => {
      if (client.getProtocolEra() !== "modern") return client.subscribeResource({ uri }, options);
      const honored = await this.listen(client, [...this.subscriptions, uri], options.timeout);
      if (!honored.resourceSubscriptions?.includes(uri)) throw new Error(`the server does not offer updates of ${uri} (subscriptions/listen)`);
      return {};
    });
    this.subscriptions.add(uri);
  }

  async unsubscribe(uri: string): Promise<void> {
    this.subscriptions.delete(uri);
    await this.request(`resources/unsubscribe ${uri}`, {}, async (client, options) => {
      if (client.getProtocolEra() !== "modern") return client.unsubscribeResource({ uri }, options);
      await this.listen(client, [...this.subscriptions], options.timeout);
      return {};
    });
  }

  /** One verified file of a listed skill (its SKILL.md by default), read now: skills are never read ahead of need. */
  async readSkill(name: string, file: string | undefined, signal?: AbortSignal): Promise<LoadedSkill> {
    const skill = this.skills.find((entry) => entry.frontmatter.name === name);
    if (!skill) throw new HubError("unknown-skill", `server "${this.name}" lists no skill "${name}"`, { server: this.name });
    const read = await this.request(`resources/read ${file ?? skill.uri}`, signal ? { signal } : {}, (client, options) =>
      readSkillFile(client, this.name, skill, file, options),
    );
    return { server: this.name, name, ...read };
  }

  /** The children of a directory of a skill's folder, for a client of the hub's own (the server declares `directoryRead`). */
  readSkillDirectory(uri: string): Promise<DirectoryResource[]> {
    return this.request(`resources/directory/read ${uri}`, {}, (client, options) => readSkillDirectory(client, uri, options));
  }

  getPrompt(name: string, args: Record<string, string> | undefined): Promise<GetPromptResult> {
    return this.relayPrompt(name, args) as Promise<GetPromptResult>;
  }

  /** getPrompt for a client of the hub's own (see RelayedRound): the server's input_required result comes back as it is. */
  relayPrompt(name: string, args: Record<string, string> | undefined, round?: RelayedRound): Promise<GetPromptResult | InputRequiredResult> {
    return this.request(`prompts/get ${name}`, {}, (client, options) => {
      const relay = relayed(client, round);
      return client.getPrompt({ name, ...(args ? { arguments: args } : {}), ...relay?.params }, { ...options, ...relay?.options });
    });
  }

  /** The browser login for a server that needs one (see OAuthSession.login), then connects if it is not connected. */
  async login(open: OpenAuthorizationUrl, timeoutMs?: number): Promise<void> {
    if (!this.auth) throw new HubError("server-error", `server "${this.name}" does not log in with OAuth`, { server: this.name });
    await this.auth.login(open, timeoutMs);
    this.setState({ needsLogin: undefined });
    if (this.state.status !== "connected") await this.start();
  }

  /**
   * Closes the transport; a stdio server's process group gets stdin closed, then SIGTERM,
   * then SIGKILL. `terminate` skips the wait after closing stdin (toolbridge got a signal), as
   * does a server still starting.
   */
  async close(terminate = false): Promise<void> {
    this.closing = true;
    this.stopped.abort();
    // A server still starting has no session to end: it is not given the stdin grace (a `call` that found its tool elsewhere).
    if (terminate || this.state.status === "connecting") this.terminating = true;
    this.startup?.abort(new HubError("closed", "the hub was closed while the server was starting"));
    await this.starting?.catch(() => undefined);
    await this.shutdown();
    if (this.state.status !== "disabled") this.setState({ status: "closed", pid: undefined });
  }

  /** For process 'exit' handlers, where nothing asynchronous runs any more. */
  killSync(): void {
    this.closing = true;
    this.stopped.abort();
    if (this.transport instanceof ProcessGroupTransport) this.transport.killSync();
  }

  private async attempt(): Promise<void> {
    const started = performance.now();
    this.closeReason = undefined;
    this.dropCause = undefined;
    this.oversized = undefined;
    this.setState({ status: "connecting", error: undefined, pid: undefined });
    const startup = new AbortController();
    this.startup = startup;
    const timer = setTimeout(
      () => startup.abort(new HubError("timeout", `did not finish initialize within ${this.startupTimeoutMs} ms`)),
      this.startupTimeoutMs,
    );
    let transport: Transport | undefined;
    try {
      const opened = await this.open(startup);
      transport = opened.transport;
      this.client = opened.client;
      this.transport = transport;
      ({ protocol: this.taskProtocol, ext: this.extTasks } = this.taskProtocolOf(opened.client, transport));
      // A 2026-07-28 server's change stream opens beside the first listings, not after them: one round trip less
      // before the server is ready, and a change made while they run is heard (the listing after it, RefreshQueue.during).
      await Promise.all([
        this.loadLists(opened.client, startup.signal),
        applyLogLevel(opened.client, this.config.logLevel ?? DEFAULT_LOG_LEVEL, this.startupTimeoutMs, (line) => this.options.log.write(this.name, line)),
        this.listenForChanges(opened.client),
      ]);
      if (this.closing) throw new HubError("closed", "the hub was closed");
      this.everConnected = true;
      const info = opened.client.getServerVersion();
      this.setState({
        status: "connected",
        serverName: info?.name,
        serverVersion: info?.version,
        protocolVersion: opened.client.getNegotiatedProtocolVersion(),
        tasksExtension: serverDeclaresTasksExtension(opened.client) || undefined,
        connectMs: Math.round(performance.now() - started),
        needsLogin: undefined,
        pid: transport instanceof ProcessGroupTransport ? transport.pid : undefined,
        stderrTail: undefined,
        restarting: undefined,
      });
    } catch (error) {
      const client = this.client;
      this.client = undefined;
      this.transport = undefined;
      await this.dispose(client, transport);
      const reason = startup.signal.aborted ? startup.signal.reason : error;
      const tail = this.tail.summary();
      this.setState({
        status: "failed",
        error: `${this.describeStartupError(reason)}${tail ? `; stderr: ${tail}` : ""}`,
        stderrTail: this.tail.lines(),
        pid: undefined,
        needsLogin: this.auth?.needsLogin || undefined,
      });
    } finally {
      clearTimeout(timer);
      this.startup = undefined;
    }
  }

  private async open(startup: AbortController): Promise<{ client: Client; transport: Transport }> {
    const config = this.config;
    if (isStdioServer(config)) {
      const transport = this.spawn(config);
      try {
        return { client: await this.connectClient(transport, startup, this.legacyOnly ? LEGACY : undefined), transport };
      } catch (error) {
        if (this.protocol === "auto" && !startup.signal.aborted && refusedAllBut(error, MODERN)) {
          this.modernOnly = true;
          this.options.log.write(this.name, `answered the server/discover probe (2026-07-28) too late and refused ${LEGACY_VERSION}: started again speaking ${MODERN}`);
          const again = this.spawn(config);
          return { client: await this.connectClient(again, startup), transport: again };
        }
        // Servers on SDKs that end on any request before initialize exit on the probe: a 2025 server, started again.
        if (this.legacyOnly || this.protocol !== "auto" || startup.signal.aborted || !exitedOnProbe(error)) throw error;
        this.legacyOnly = true;
        this.options.log.write(this.name, "exited on the server/discover probe (2026-07-28): started again speaking 2025-11-25");
        const again = this.spawn(config);
        return { client: await this.connectClient(again, startup, LEGACY), transport: again };
      }
    }
    const url = new URL(config.url);
    for (const value of Object.values(config.headers ?? {})) registerSecret(value.replace(/^(Bearer|Basic|Token)\s+/i, ""));
    const requestInit = {
      ...(config.headers ? { requestInit: { headers: config.headers } } : {}),
      ...(this.auth ? { authProvider: this.auth.provider } : {}),
    };
    if (isWebSocketServer(config)) return this.openWebSocket(url, config, startup);
    // The size limit over the OAuth session's fetch, which notes what a 401 or 403 asks for; answers posted a few at a
    // time, and once more if a connection closed under one; each request with a signal of its own.
    const fetch = ownSignals(
      answerPosts(
        limitedFetch({
          maxMessageBytes: this.maxMessageBytes,
          onOversizedStream: (error) => this.onOversizedStream(error),
          ...(this.auth ? { fetch: this.auth.fetch } : {}),
        }),
      ),
    );
    if (config.type === "sse") {
      // The HTTP+SSE transport of 2024-11-05 predates server/discover.
      const transport = new SSEClientTransport(url, { ...requestInit, fetch });
      return { client: await this.connectClient(transport, startup, LEGACY), transport };
    }
    // Ours, so that closing can stop the SDK from scheduling reconnections that would keep toolbridge alive.
    const reconnection = { ...STREAM_RECONNECTION };
    this.reconnection = reconnection;
    this.streamCuts = 0;
    const newStreamable = (): StreamableHTTPClientTransport => {
      const streamable: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(url, {
        ...requestInit,
        reconnectionOptions: reconnection,
        fetch: watchResponseStreams((ids, how) => {
          for (const id of ids) {
            const error = { code: ProtocolErrorCode.InternalError, message: `the server's event stream ${how}`, data: { fromTransport: true, streamEnd: how } };
            streamable.onmessage?.({ jsonrpc: "2.0", id, error });
          }
        }, fetch),
      });
      return streamable;
    };
    const streamable = newStreamable();
    try {
      return { client: await this.connectClient(streamable, startup), transport: streamable };
    } catch (caught) {
      let error = caught;
      await closeTransport(streamable);
      // A 5xx to the server/discover probe is a refusal of it like any other (a 2025 server whose router throws on
      // a method it does not know): v2 gives up there, so the server is asked with initialize, as v2 does for a 4xx.
      if (this.protocol === "auto" && !startup.signal.aborted && probeFailedOnServer(error)) {
        this.options.log.write(this.name, `answered the server/discover probe (2026-07-28) with ${describe(error)}: speaking ${LEGACY_VERSION}`);
        const again = newStreamable();
        try {
          return { client: await this.connectClient(again, startup, LEGACY), transport: again };
        } catch (legacyError) {
          await closeTransport(again);
          error = legacyError;
        }
      }
      // The spec's backwards compatibility: a 4xx to the POST of initialize means an old
      // server that only speaks the HTTP+SSE transport of 2024-11-05; 401 and 403 are about credentials.
      // A server pinned to 2026-07-28 has no such fallback.
      if (!(error instanceof SdkHttpError) || error.status < 400 || error.status >= 500 || isAuthStatus(error.status) || this.protocol === MODERN) {
        throw error;
      }
      const sse = new SSEClientTransport(url, { ...requestInit, fetch });
      try {
        const client = await this.connectClient(sse, startup, LEGACY);
        this.setState({ transport: "sse" });
        return { client, transport: sse };
      } catch (sseError) {
        await closeTransport(sse);
        throw new Error(
          `Streamable HTTP: ${describe(error)}; legacy SSE: ${describe(sseError)}`,
        );
      }
    }
  }

  /** A WebSocket server: its headers on the handshake, maxMessageBytes on every frame; one that closes on the probe is spoken to in 2025-11-25. */
  private async openWebSocket(url: URL, config: RemoteServerConfig, startup: AbortController): Promise<{ client: Client; transport: Transport }> {
    const connect = async (prior?: PriorDiscovery): Promise<{ client: Client; transport: Transport }> => {
      const transport = new WebSocketClientTransport(url, {
        ...(config.headers ? { headers: config.headers } : {}),
        maxMessageBytes: this.maxMessageBytes,
        handshakeTimeoutMs: this.startupTimeoutMs,
      });
      try {
        return { client: await this.connectClient(transport, startup, prior), transport };
      } catch (error) {
        await closeTransport(transport);
        throw error;
      }
    };
    try {
      return await connect(this.legacyOnly ? LEGACY : undefined);
    } catch (error) {
      if (this.legacyOnly || this.protocol !== "auto" || startup.signal.aborted || !exitedOnProbe(error)) throw error;
      this.legacyOnly = true;
      this.options.log.write(this.name, "closed the WebSocket on the server/discover probe (2026-07-28): connected again speaking 2025-11-25");
      return connect(LEGACY);
    }
  }

  private spawn(config: StdioServerConfig): ProcessGroupTransport {
    const transport = new ProcessGroupTransport({
      command: config.command,
      args: config.args ?? [],
      // Added to the SDK's safe defaults (PATH, HOME, ...); nothing else of ours leaks.
      env: config.env ?? {},
      ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
      ...(config.maxMessageBytes !== undefined ? { maxMessageBytes: config.maxMessageBytes } : {}),
    });
    this.tail.clear();
    transport.stderr.on("data", (chunk: Buffer) => {
      for (const line of this.tail.push(chunk.toString("utf8"))) this.options.log.write(this.name, line);
    });
    return transport;
  }

  /**
   * A client on `transport`, connected in the era the server speaks: v2's negotiation probes with
   * server/discover and speaks 2026-07-28 to a server that offers it, else initializes as in 2025
   * (`prior` LEGACY skips the probe). The probe is made in place, on the one connection.
   */
  private async connectClient(transport: Transport, startup: AbortController, prior?: PriorDiscovery): Promise<Client> {
    keepArrivalOrder(transport, usableHints(transport, (line) => this.options.log.write(this.name, line)));
    // Silence to the probe means a 2025 server only on stdio; on HTTP it is an outage (v2 fails the connect),
    // and pinned to 2026-07-28 the probe is the handshake itself: both get the whole start-up, as initialize would.
    const guessing = transport instanceof ProcessGroupTransport && this.protocol === "auto";
    const probeTimeoutMs = guessing ? Math.min(PROBE_TIMEOUT_MS, Math.ceil(this.startupTimeoutMs / 2)) : this.startupTimeoutMs;
    // A pinned 2025-11-25 skips the probe; a pinned 2026-07-28 must be offered by server/discover, with no fallback.
    if (this.protocol === LEGACY_VERSION) prior = LEGACY;
    if (this.protocol === MODERN && prior === LEGACY) {
      throw new HubError("server-error", `"protocol": "${MODERN}" needs Streamable HTTP or stdio: the legacy SSE transport speaks ${LEGACY_VERSION} at most`);
    }
    const client = new Client(this.options.clientInfo, {
      capabilities: clientCapabilities({ handlers: this.options.handlers, roots: this.options.roots }),
      versionNegotiation: { mode: this.protocol === MODERN ? { pin: MODERN } : "auto", probe: { timeoutMs: probeTimeoutMs } },
      jsonSchemaValidator: compiledSchemas,
    });
    let initialized = false;
    let garbageTimer: NodeJS.Timeout | undefined;
    // On the transport, not the client: v2 forwards a transport's errors during the server/discover probe too.
    transport.onerror = (error) => {
      // An event stream that failed or could not be reopened, heard while no request is under way.
      if (initialized) this.noticeDrop(client, error);
      if (!isUnparsableOutput(error)) return;
      const where = transport instanceof WebSocketClientTransport ? "a WebSocket frame" : "stdout";
      this.options.log.write(this.name, `${where} is not JSON-RPC: ${describe(error)}`);
      // Some servers print a banner before they start speaking JSON-RPC; give them a moment.
      garbageTimer ??= setTimeout(() => {
        if (!initialized) startup.abort(new HubError("server-error", `wrote something that is not JSON-RPC ${where === "stdout" ? "on stdout" : "in a WebSocket frame"} (${describe(error)})`));
      }, GARBAGE_GRACE_MS);
    };
    client.onclose = () => {
      clearTimeout(garbageTimer);
      this.onClosed(client);
    };
    this.registerHandlers(client);
    try {
      const started = performance.now();
      // The SDK hears the signal only after its server/discover probe: a close (Ctrl-C) during the probe must not wait it out.
      await untilAborted(client.connect(transport, { signal: startup.signal, timeout: this.startupTimeoutMs + 1000, ...(prior ? { prior } : {}) }), startup.signal);
      initialized = true;
      if (!prior && transport instanceof ProcessGroupTransport && client.getProtocolEra() === "legacy" && performance.now() - started >= probeTimeoutMs) {
        this.legacyOnly = true;
        this.options.log.write(this.name, `did not answer the server/discover probe (2026-07-28) within ${probeTimeoutMs} ms: speaking 2025-11-25`);
      }
      return client;
    } catch (error) {
      // Given up while the SDK still probes, the client may not hold the transport yet: both are closed.
      // After a signal to toolbridge (dispose) the process is ended at once, not after the stdin grace.
      await this.dispose(client, transport);
      await closeTransport(transport);
      throw error;
    } finally {
      clearTimeout(garbageTimer);
    }
  }

  /**
   * The tasks extension where a 2026-07-28 server declares it: its requests go beside the client on the same
   * transport, declaring the extension in their own per-request capabilities. Else SEP-1686.
   */
  private taskProtocolOf(client: Client, transport: Transport): { protocol: ToolTaskProtocol; ext?: TasksExtensionClient } {
    if (!serverDeclaresTasksExtension(client)) return { protocol: sep1686Tasks };
    const features = { server: this.name, handlers: this.options.handlers, roots: this.options.roots };
    const capabilities = clientCapabilities(features);
    const raw = new RawRequests(transport, {
      protocolVersion: client.getNegotiatedProtocolVersion() ?? MODERN,
      clientInfo: this.options.clientInfo,
      clientCapabilities: { ...capabilities, extensions: { ...capabilities.extensions, [TASKS_EXTENSION_ID]: {} } },
    });
    const ext = new TasksExtensionClient(raw);
    const protocol = extensionTasks(
      ext,
      answerInputRequest(features),
      (task) => {
        if (this.client === client) this.tasks.notified(task);
      },
    );
    return { protocol, ext };
  }

  private registerHandlers(client: Client): void {
    for (const kind of ["tools", "resources", "prompts"] as const) {
      client.setNotificationHandler(`notifications/${kind}/list_changed`, () => {
        if (this.client !== client) return;
        this.saidChanged[kind] = true;
        this.relistFailures[kind] = 0;
        void this.refreshes[kind].request();
      });
    }
    // SDK v2 dropped SEP-1686 tasks from its spec methods; their schemas remain.
    client.setNotificationHandler("notifications/tasks/status", { params: TaskStatusNotificationParamsSchema }, (task) => {
      if (this.client === client) this.tasks.notified(task);
    });
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      this.options.emit({ type: "resource-updated", server: this.name, uri: notification.params.uri });
    });
    registerClientFeatures(client, {
      server: this.name,
      handlers: this.options.handlers,
      roots: this.options.roots,
      emit: this.options.emit,
      pid: () => (this.transport instanceof ProcessGroupTransport ? (this.transport.pid ?? undefined) : undefined),
      log: (line) => this.options.log.write(this.name, line),
      logLevel: this.config.logLevel ?? DEFAULT_LOG_LEVEL,
    });
  }

  /**
   * A 2026-07-28 server sends list changes and resource updates only on a subscriptions/listen stream:
   * one is opened for the lists it says change and the resources subscribed to (a restart's too); the
   * notifications reach the handlers a 2025 server's would. A refusal is logged.
   */
  private async listenForChanges(client: Client): Promise<void> {
    if (client.getProtocolEra() !== "modern") return;
    await this.listen(client, [...this.subscriptions], this.startupTimeoutMs).catch((error: unknown) => {
      // A start that failed otherwise closed the client under it: that start's error says why.
      if (this.client === client) this.options.log.write(this.name, `could not open subscriptions/listen: ${describe(error)}`);
    });
  }

  /**
   * Opens the subscriptions/listen stream for the server's list changes and these resources, then closes
   * the one it replaces (so nothing sent meanwhile is missed); one at a time. What the server agreed to.
   */
  private listen(client: Client, resources: string[], timeout: number): Promise<SubscriptionFilter> {
    const capabilities = client.getServerCapabilities() ?? {};
    const filter: SubscriptionFilter = {
      ...(capabilities.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(capabilities.resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(capabilities.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(resources.length > 0 ? { resourceSubscriptions: resources } : {}),
    };
    const opening = this.listening.catch(() => undefined).then(async () => {
      const previous = this.listener?.client === client ? this.listener.subscription : undefined;
      if (Object.keys(filter).length === 0) {
        this.listener = undefined;
        await previous?.close();
        return filter;
      }
      const subscription = await client.listen(filter, { timeout });
      this.listener = { client, subscription };
      await previous?.close();
      return subscription.honoredFilter;
    });
    this.listening = opening;
    return opening;
  }

  /** Whether its server's caching hint says the list of `kind` it gave is no longer fresh (never so for a 2025 server's). */
  isStale(kind: ListKind): boolean {
    return this.client !== undefined && this.state.status === "connected" && performance.now() >= this.freshUntil[kind];
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

  /**
   * Lists `kind` again, all its pages within requestTimeoutMs. A failure keeps the list it gave and puts the next
   * try off (relistDelay), so a server whose listing keeps failing is not asked before every model request; the
   * first failure of a run is one log line, the end of the run another.
   */
  private async refresh(kind: ListKind): Promise<void> {
    const client = this.client;
    if (!client) return;
    const before = JSON.stringify(this.listsOf(kind));
    const said = this.saidChanged[kind];
    this.saidChanged[kind] = false;
    const limit = AbortSignal.timeout(this.requestTimeoutMs);
    try {
      await this.loadList(client, kind, limit);
    } catch (error) {
      const failures = ++this.relistFailures[kind];
      this.freshUntil[kind] = Math.max(this.freshUntil[kind], performance.now() + relistDelay(failures));
      if (failures === 1) {
        const why = limit.aborted ? `no answer within ${this.requestTimeoutMs} ms (toolTimeoutMs)` : describe(error);
        this.options.log.write(
          this.name,
          `could not refresh ${kind}: ${why}; kept the list it gave before, and while listing it keeps failing, tries again ` +
            `${RELIST_BACKOFF_MS / 1000} s later, doubling up to ${MAX_RELIST_BACKOFF_MS / 1000} s (said once)`,
        );
      }
      return;
    }
    if (this.relistFailures[kind] > 0) {
      this.options.log.write(this.name, `refreshed ${kind} again after ${this.relistFailures[kind]} failed ${this.relistFailures[kind] === 1 ? "try" : "tries"}`);
      this.relistFailures[kind] = 0;
    }
    // A stale list listed again is most often the same list: announced only when it changed.
    if (!said && JSON.stringify(this.listsOf(kind)) === before) return;
    this.updateCounts();
    this.options.emit({ type: `${kind}-changed`, server: this.name });
  }

  private listsOf(kind: ListKind): unknown[] {
    return kind === "tools" ? this.tools : kind === "prompts" ? this.prompts : [this.resources, this.resourceTemplates, this.skills];
  }

  private async loadLists(client: Client, signal: AbortSignal): Promise<void> {
    // A list_changed heard while a first listing runs makes one listing after it (see RefreshQueue.during).
    const first = (kind: ListKind): Promise<void> => {
      const listing = this.loadList(client, kind, signal);
      this.refreshes[kind].during(listing);
      return listing;
    };
    await Promise.all([
      first("tools"),
      // A server whose resources or prompts listing fails still serves its tools.
      first("resources").catch((error: unknown) => {
        if (signal.aborted) throw error;
        this.options.log.write(this.name, `could not list resources: ${describe(error)}`);
      }),
      first("prompts").catch((error: unknown) => {
        if (signal.aborted) throw error;
        this.options.log.write(this.name, `could not list prompts: ${describe(error)}`);
      }),
    ]);
    this.updateCounts();
  }

  private async loadList(client: Client, kind: ListKind, signal?: AbortSignal): Promise<void> {
    const capabilities = client.getServerCapabilities() ?? {};
    const options: RequestOptions = signal ? { signal } : {};
    const server = this.name;
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
      this.tools = this.state.transport === "streamable-http" && client.getProtocolEra() === "modern" ? this.withValidHeaders(tools) : tools;
    } else if (kind === "resources") {
      [this.resources, this.resourceTemplates, this.skills] = capabilities.resources
        ? await Promise.all([
            list("resources/list", "resources", ListResourcesResultSchema, (r) => r.resources).then(entries),
            list("resources/templates/list", "resourceTemplates", ListResourceTemplatesResultSchema, (r) => r.resourceTemplates).then(entries),
            // Skills are extra: a server whose skill listing fails keeps its resources.
            listSkills(client, (line) => this.options.log.write(this.name, line), options).catch((error: unknown) => {
              if (signal?.aborted) throw error;
              this.options.log.write(this.name, `could not list skills: ${describe(error)}`);
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
      this.options.log.write(this.name, `${method}: left out "${typeof name === "string" ? name : "?"}": ${tooDeep("its entry")}`);
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
      if (fault) this.options.log.write(this.name, `tools/list: left out ${JSON.stringify(tool.name)}: ${fault}`);
      return !fault;
    });
  }

  private updateCounts(): void {
    this.setState({ toolCount: this.tools.length, resourceCount: this.resources.length, promptCount: this.prompts.length });
  }

  /** The client of a live server, restarting a stdio server that died or reconnecting a remote one (bounded, with backoff). */
  private async ready(): Promise<Client> {
    for (;;) {
      if (this.closing) throw new HubError("closed", "the hub was closed", { server: this.name });
      if (this.starting) {
        await this.starting;
        continue;
      }
      if (this.client && this.state.status === "connected") return this.client;
      if (this.state.status === "disabled") {
        throw new HubError("server-unavailable", `server "${this.name}" is disabled in the config`, { server: this.name });
      }
      if (!this.everConnected || this.gaveUp || this.restartFailures >= this.maxRestarts) {
        if (this.everConnected && !this.gaveUp) this.giveUp();
        throw new HubError("server-unavailable", `server "${this.name}" is unavailable: ${this.state.error ?? this.state.status}`, {
          server: this.name,
        });
      }
      this.starting = this.restart().finally(() => {
        this.starting = undefined;
      });
    }
  }

  /** Settles when the restarts under way (if any) have ended: the server is back, or left down. */
  settled(): Promise<void> {
    return this.starting ?? Promise.resolve();
  }

  /**
   * Starts again, at once and with backoff, a server whose live connection dropped, until it is back or maxRestarts
   * tries in a row failed; its tools stay listed meanwhile (a call waits for the restart), and go when it is left down.
   */
  private async recover(): Promise<void> {
    while (!this.closing && this.restartFailures < this.maxRestarts) {
      await this.restart();
      if (this.state.status === "connected") return;
    }
    if (!this.closing) this.giveUp();
  }

  /** Left down for good: its lists leave the registry, and its state says why in one line. */
  private giveUp(): void {
    this.gaveUp = true;
    this.tools = [];
    this.resources = [];
    this.resourceTemplates = [];
    this.prompts = [];
    this.skills = [];
    const tries = `${this.maxRestarts} ${this.maxRestarts === 1 ? "try" : "tries"}`;
    this.setState({ toolCount: 0, resourceCount: 0, promptCount: 0, restarting: undefined, error: `${this.state.error ?? "stopped"} (gave up after ${tries} to ${this.state.transport === "stdio" ? "restart" : "reconnect"} it)` });
    for (const kind of ["tools", "resources", "prompts"] as const) this.options.emit({ type: `${kind}-changed`, server: this.name });
  }

  private async restart(): Promise<void> {
    const backoff = Math.min(this.options.restartBackoffMs * 2 ** Math.min(this.restartFailures, 16), MAX_RESTART_DELAY_MS);
    // Between half the backoff and all of it: clients of one server that went down do not all come back at once.
    const delay = backoff / 2 + Math.random() * (backoff / 2);
    this.restartFailures++;
    await sleep(delay, undefined, { signal: this.stopped.signal }).catch(() => undefined);
    if (this.closing) return;
    this.setState({ restarts: this.state.restarts + 1 });
    await this.attempt();
    const client = this.client;
    if (!client || this.state.status !== "connected") return;
    // Tool calls wait in ready() until this ends: renew together, each bounded like any request.
    // A 2026-07-28 server's are in the subscriptions/listen stream the start opened.
    if (client.getProtocolEra() === "legacy") await Promise.all(
      [...this.subscriptions].map((uri) =>
        client.subscribeResource({ uri }, { timeout: this.requestTimeoutMs }).catch((error: unknown) => {
          this.options.log.write(this.name, `could not renew the subscription to ${uri}: ${describe(error)}`);
        }),
      ),
    );
    for (const kind of ["tools", "resources", "prompts"] as const) this.options.emit({ type: `${kind}-changed`, server: this.name });
  }

  /**
   * Runs one request on the live client, bounded by `timeoutMs` (default requestTimeoutMs), errors made HubErrors;
   * `maxTotalMs`, where given, is the cap the request's SDK options set (maxTotalTimeout). Not an async function:
   * the answer's checks are one step after the request's own promise, the only step this adds to a call.
   */
  private request<T>(
    what: string,
    { signal, timeoutMs = this.requestTimeoutMs }: { signal?: AbortSignal; timeoutMs?: number },
    run: (client: Client, options: BoundedOptions) => Promise<T>,
    maxTotalMs?: number,
  ): Promise<T> {
    if (signal?.aborted) return Promise.reject(new HubError("cancelled", `${what} on server "${this.name}" was cancelled`, { server: this.name }));
    const options = signal ? { timeout: timeoutMs, signal } : { timeout: timeoutMs };
    // The common case stays synchronous: a round trip is a fraction of a millisecond over stdio.
    let client = this.client && this.state.status === "connected" && !this.closing ? this.client : undefined;
    // ready()'s failures are HubErrors, passed on as they are.
    const sent = client ? started(run, client, options) : this.ready().then((ready) => run((client = ready), options));
    return sent.then(
      (result) => {
        this.restartFailures = 0;
        // Checked once here, so nothing that renders, serializes or validates it later overflows the stack.
        if (nestedDeeperThan(result)) throw new HubError("server-error", `${what} on server "${this.name}" failed: ${tooDeep("the result")}`, { server: this.name });
        return result;
      },
      (error: unknown) => {
        if (client && this.noticeDrop(client, error)) throw this.droppedError(error, what);
        throw this.requestError(error, what, signal, timeoutMs, maxTotalMs);
      },
    );
  }

  /**
   * A stream that carries no reply to a request of ours passed maxMessageBytes. Legacy SSE
   * carries every reply on that stream: the connection ends, so waiting requests fail now
   * with this error (and the next one reconnects). The Streamable HTTP GET stream only ends.
   */
  private onOversizedStream(error: MessageTooLargeError): void {
    this.options.log.write(this.name, `stream closed: ${error.message}`);
    if (this.state.transport === "streamable-http") return this.backOffStream();
    if (this.state.transport !== "sse" || !this.client) return;
    this.oversized = error;
    void this.client.close();
  }

  /** The SDK reopens the event stream: later each time it is cut, and not at all after MAX_STREAM_CUTS, saying so once. */
  private backOffStream(): void {
    const reconnection = this.reconnection;
    if (!reconnection || reconnection.maxRetries === 0) return;
    this.streamCuts++;
    if (this.streamCuts < MAX_STREAM_CUTS) {
      reconnection.initialReconnectionDelay = Math.min(reconnection.initialReconnectionDelay * STREAM_CUT_BACKOFF, reconnection.maxReconnectionDelay);
      return;
    }
    reconnection.maxRetries = 0;
    const text = `stopped reopening the server's event stream after ${MAX_STREAM_CUTS} cuts at maxMessageBytes: its notifications (list changes, logs) no longer arrive; calls still work`;
    this.options.log.write(this.name, text);
    this.options.emit({ type: "log", server: this.name, level: "warning", text });
  }

  /**
   * Whether `error`, met by a request or an event stream of `client`, means its remote server's connection dropped
   * (remoteDropOf): if so, and `client` is the live one, the connection is ended and reconnected (onClosed), as a
   * stdio server that exited is started again. Stdio and WebSocket servers say so by closing their transport.
   */
  private noticeDrop(client: Client, error: unknown): boolean {
    const transport = this.transport;
    if (transport instanceof ProcessGroupTransport || transport instanceof WebSocketClientTransport) return false;
    const hadSession = transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined;
    const cause = remoteDropOf({ error, hadSession });
    if (cause === undefined) return false;
    if (this.client !== client || this.closing || this.state.status !== "connected") return true;
    this.dropCause = cause;
    this.options.log.write(this.name, `the connection dropped (${cause}): reconnecting`);
    this.onClosed(client);
    // Its other requests fail now (the connection closed), and meet the same recovery.
    void client.close().catch(() => undefined);
    return true;
  }

  /** A request's error when its connection dropped under it: one droppedDuring knows, so the hub waits for the reconnection. */
  private droppedError(error: unknown, what: string): HubError {
    const cause = new SdkError(SdkErrorCode.ConnectionClosed, this.dropCause ?? describe(error), error);
    return new HubError("server-unavailable", `the connection to server "${this.name}" dropped during ${what} (${this.dropCause ?? describe(error)})`, { server: this.name, cause });
  }

  private requestError(error: unknown, what: string, signal: AbortSignal | undefined, timeoutMs: number, maxTotalMs?: number): HubError {
    const server = this.name;
    if (error instanceof HubError) return error;
    const tooLarge = tooLargeMessage(error) ?? (isConnectionClosed(error) ? this.oversized?.message : undefined);
    if (tooLarge) return new HubError("server-error", `${what} on server "${server}" failed: ${tooLarge}`, { server, cause: error });
    if (signal?.aborted) return new HubError("cancelled", `${what} on server "${server}" was cancelled`, { server, cause: error });
    if (this.auth?.wantsLogin(error)) {
      this.setState({ needsLogin: true });
      return new HubError("needs-login", `${what} on server "${server}" needs a new login`, { server, cause: error });
    }
    if (error instanceof ProtocolError && isFromTransport(error.data)) {
      // Our transports' own error, standing in for a reply they could not deliver.
      return new HubError("server-error", `${what} on server "${server}" failed: ${error.message.replace(/^MCP error -?\d+: /, "")}`, { server, cause: error });
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
      if (maxTotalMs !== undefined && isTotalTimeout(error, maxTotalMs < timeoutMs)) return this.overMaxToolTime(what, maxTotalMs, error);
      return new HubError("timeout", `${what} on server "${server}" timed out after ${timeoutMs} ms without progress`, { server, cause: error });
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
      if (this.closing) return new HubError("closed", `the hub was closed during ${what} on server "${server}"`, { server, cause: error });
      if (this.closeReason !== undefined) return new HubError("server-error", `${what} on server "${server}" failed: ${this.closeReason}`, { server, cause: error });
      const tail = this.tail.summary();
      return new HubError("server-unavailable", `server "${server}" closed the connection during ${what}${tail ? `; stderr: ${tail}` : ""}`, {
        server,
        cause: error,
      });
    }
    return new HubError("server-error", `${what} on server "${server}" failed: ${describe(error)}`, { server, cause: error });
  }

  private onClosed(client: Client): void {
    if (this.client !== client) return;
    const transport = this.transport;
    this.closeReason = transport instanceof ProcessGroupTransport || transport instanceof WebSocketClientTransport ? transport.closeReason : undefined;
    const wasLive = this.state.status === "connected";
    this.client = undefined;
    this.transport = undefined;
    if (this.closing) return;
    const tail = this.tail.summary();
    if (this.oversized) {
      this.setState({ status: "failed", error: `the connection was ended: ${this.oversized.message}` });
      return;
    }
    const what =
      this.closeReason ?? (this.dropCause !== undefined ? `the connection dropped (${this.dropCause})` : `the server closed the connection${this.state.transport === "stdio" ? " (the process exited)" : ""}`);
    // A live server that dropped is started again now, not at its next call: its tools are offered again meanwhile.
    const restart = wasLive && !this.starting && !this.gaveUp && this.maxRestarts > 0;
    this.setState({
      status: "failed",
      error: `${what}${tail ? `; stderr: ${tail}` : ""}`,
      stderrTail: this.tail.lines(),
      pid: undefined,
      ...(wasLive ? { dropped: this.dropCause ?? dropReason(transport, this.closeReason) } : {}),
      restarting: restart || undefined,
    });
    if (restart) {
      this.starting = this.recover().finally(() => {
        this.starting = undefined;
      });
    }
  }

  private async shutdown(): Promise<void> {
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    // Ending the session ends its streams: the SDK must not schedule reconnections then.
    if (this.reconnection) this.reconnection.maxRetries = 0;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
      await withTimeout(transport.terminateSession(), 1000).catch(() => undefined);
    }
    await this.dispose(client, transport);
  }

  private async dispose(client: Client | undefined, transport: Transport | undefined): Promise<void> {
    // A signal to toolbridge: the servers are not waited for after their stdin closes.
    if (this.terminating && transport instanceof ProcessGroupTransport) await transport.terminate();
    if (client) await client.close().catch(() => undefined);
    else if (transport) await closeTransport(transport);
  }

  private describeStartupError(error: unknown): string {
    error = probeFailure(error);
    // Already one line naming this server (a listing over its limits).
    if (error instanceof HubError && error.server === this.name) return error.message;
    const config = this.config;
    const authFailure = this.auth?.describeFailure(error);
    if (authFailure !== undefined) return authFailure;
    // Only a 401 asks for credentials: a 403 may be anything the server refuses (its Host allow-list against DNS
    // rebinding, an IP filter), so its status and words are quoted below as they are.
    if (error instanceof SdkHttpError && error.status === 401) {
      return authenticationRequired(error.status, error.message.replace(/^Streamable HTTP error: (Error POSTing to endpoint: )?/, ""), "the server refused it");
    }
    if (isStdioServer(config) && isErrnoException(error) && error.code === "ENOENT") {
      return `command not found: ${config.command}`;
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
      return isStdioServer(config) ? "the process exited during startup" : "the server closed the connection during startup";
    }
    // v2 asked once more in the version the server named: refused again, the connection is given up.
    if (error instanceof UnsupportedProtocolVersionError) {
      const supported = error.supported.slice(0, 5).join(", ").slice(0, 200);
      error = new Error(`the server refused the protocol version again (-32022) after one retry in a version it names; it names: ${supported}`);
    }
    if (!isStdioServer(config)) return `cannot connect to ${(config as RemoteServerConfig).url}: ${describe(error)}`;
    return describe(error);
  }

  private setState(patch: Partial<ServerState>): void {
    // Errors quote URLs and servers' own words: no token in them reaches `servers`, warnings or JSON.
    if (patch.error !== undefined) patch = { ...patch, error: redactSecrets(patch.error) };
    Object.assign(this.state, patch);
    for (const key of Object.keys(patch) as (keyof ServerState)[]) if (patch[key] === undefined) delete this.state[key];
    if ("status" in patch || "error" in patch) {
      this.options.emit({ type: "server-status", state: { ...this.state } });
    }
  }
}

/** Why a live connection ended, in a few words: how the process exited, or the limit a message passed. */
function dropReason(transport: Transport | undefined, closeReason: string | undefined): string {
  if (closeReason !== undefined) return "a message over maxMessageBytes";
  if (transport instanceof ProcessGroupTransport) return transport.exit ?? "the process exited";
  return "the connection closed";
}

/** Whether a request failed because the server's connection dropped under it (not a refusal, a timeout or a close of ours). */
export function droppedDuring(error: unknown): error is HubError {
  return error instanceof HubError && error.code === "server-unavailable" && isConnectionClosed(error.cause);
}

async function closeTransport(transport: Transport): Promise<void> {
  await transport.close().catch(() => undefined);
}

function isAuthStatus(status: number): boolean {
  return status === 401 || status === 403;
}

function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string";
}

function isFromTransport(data: unknown): boolean {
  return typeof data === "object" && data !== null && "fromTransport" in data;
}

/** The limit's line, from our error or from the JSON-RPC error that replaced a reply on a POST stream. */
function tooLargeMessage(error: unknown): string | undefined {
  if (error instanceof MessageTooLargeError) return error.message;
  if (error instanceof Error && error.cause instanceof MessageTooLargeError) return error.cause.message;
  if (error instanceof ProtocolError && typeof (error.data as { maxMessageBytes?: unknown } | undefined)?.maxMessageBytes === "number") {
    return error.message.replace(/^MCP error -?\d+: /, "");
  }
  return undefined;
}

/** run's promise; a throw before it has one is a rejection, as from an async function. */
function started<T>(run: (client: Client, options: BoundedOptions) => Promise<T>, client: Client, options: BoundedOptions): Promise<T> {
  try {
    return run(client, options);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The progress handler of a call whose caller has none: the call still asks for progress, to reset its idle timeout. */
function ignoreProgress(): void {}

/**
 * Whether a call's timeout was its total cap: the SDK's maxTotalTimeout, or the idle timeout
 * when the cap was below it and stood in for it (`idleWasCap`).
 */
function isTotalTimeout(error: unknown, idleWasCap: boolean): boolean {
  const cause = error instanceof HubError ? error.cause : error;
  if (!(cause instanceof SdkError) || cause.code !== SdkErrorCode.RequestTimeout) return false;
  return idleWasCap || typeof (cause.data as { maxTotalTimeout?: unknown } | undefined)?.maxTotalTimeout === "number";
}

/** The server refused initialize and named only `version`, a revision reached by server/discover alone. */
function refusedAllBut(error: unknown, version: string): boolean {
  return error instanceof UnsupportedProtocolVersionError && error.supported.length > 0 && error.supported.every((named) => named === version);
}

/** v2's verdict when a server probed in place closed the connection during server/discover. */
function exitedOnProbe(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed && /closed during the server\/discover probe/.test(error.message);
}

/** v2's verdict when an HTTP server answered the server/discover probe with a 5xx (it falls back to initialize on a 4xx). */
function probeFailedOnServer(error: unknown): boolean {
  return error instanceof SdkHttpError && error.code === SdkErrorCode.EraNegotiationFailed && error.status >= 500 && error.message.startsWith("Version negotiation failed");
}

/**
 * What went wrong under v2's "version negotiation failed" when the server/discover probe met a
 * network error (its cause) or an HTTP error (its body), as the same request would say without the probe.
 */
function probeFailure(error: unknown): unknown {
  // A 401 or 403 to the probe comes with its own codes, but the same "Version negotiation failed" wording.
  const fromProbe = error instanceof SdkError && (error.code === SdkErrorCode.EraNegotiationFailed || (error instanceof SdkHttpError && error.message.startsWith("Version negotiation failed")));
  if (!fromProbe) return error;
  if (error instanceof SdkHttpError && typeof error.data.text === "string" && error.data.text) {
    return new SdkHttpError(error.code, `Error POSTing to endpoint: ${error.data.text}`, error.data);
  }
  return error.cause instanceof Error && !(error instanceof SdkHttpError) ? error.cause : error;
}

function isConnectionClosed(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed;
}

/** What the SDK's stdio reader reports for a line that is not a JSON-RPC message. */
function isUnparsableOutput(error: Error): boolean {
  return error instanceof SyntaxError || error.name === "ZodError" || error.constructor.name.includes("ZodError");
}

/** One line from any error, with the network cause fetch hides under "fetch failed". */
function describe(error: unknown): string {
  error = probeFailure(error);
  if (!(error instanceof Error)) return String(error);
  const status = error instanceof SdkHttpError ? error.status : error instanceof SseError ? error.code : undefined;
  if (typeof status === "number" && status > 0) {
    const message = error.message.replace(/^(Streamable HTTP error|SSE error): /, "");
    return `HTTP ${status}: ${message}`.replace(/\s*\n\s*/g, " ").slice(0, 500);
  }
  const cause = error.cause;
  const causeText =
    cause instanceof Error && error.message === "fetch failed" ? `: ${(cause as NodeJS.ErrnoException).code ?? cause.message}` : "";
  const message = onePrefix(error.message);
  return `${message}${causeText}`.replace(/\s*\n\s*/g, " ").slice(0, 500);
}

/** The task a relayed tools/call was answered with, as the server made it; any other error is thrown on. */
function relayedTaskOf(error: unknown): CreatedTask {
  const task = createdTaskOf(error);
  if (task === undefined) throw error;
  return { ...task, resultType: "task" };
}

/** The params and options that pass a relayed round to a server speaking 2026-07-28; none for one speaking 2025-11-25 (it asks by requests of its own). */
function relayed(client: Client, round: RelayedRound | undefined): { params: Partial<RelayedRound> & { _meta?: Record<string, unknown> }; options: { allowInputRequired: true } } | undefined {
  if (!round || client.getProtocolEra() !== "modern") return undefined;
  const { inputResponses, requestState, clientCapabilities } = round;
  return {
    params: {
      ...(inputResponses ? { inputResponses } : {}),
      ...(requestState !== undefined ? { requestState } : {}),
      // The server asks only what the hub's client can answer.
      ...(clientCapabilities ? { _meta: { [CLIENT_CAPABILITIES_META_KEY]: clientCapabilities } } : {}),
    },
    options: { allowInputRequired: true },
  };
}

/** How long a list whose listing again failed is kept before the next try: doubling from 1 s, at most 60 s. */
const RELIST_BACKOFF_MS = 1000;
const MAX_RELIST_BACKOFF_MS = 60_000;

function relistDelay(failures: number): number {
  return Math.min(RELIST_BACKOFF_MS * 2 ** Math.min(failures - 1, 16), MAX_RELIST_BACKOFF_MS);
}

/** Whether the server declares that it announces changes of its `kind` list (listChanged). */
function announcesChanges(capabilities: ServerCapabilities, kind: ListKind): boolean {
  return capabilities[kind]?.listChanged === true;
}
