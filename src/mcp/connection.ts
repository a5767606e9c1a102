import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, SdkError, SdkErrorCode, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { TaskStatusNotificationParamsSchema } from "@modelcontextprotocol/core";
import type { CallToolRequestOptions, Client, CallToolRequestParams, CallToolResult, CompleteRequestParams, CompleteResult, GetPromptResult, InputRequiredResult, Prompt, ReadResourceResult, RequestOptions, Resource, ResourceTemplateType, ServerCapabilities, Tool } from "@modelcontextprotocol/client";
import type { DirectoryResource, Skill } from "@modelcontextprotocol/client/ext/skills";
import { redactSecrets } from "../config/redact.js";
import type { ProtocolSetting, ServerConfig } from "../config/schema.js";
import { oauthSessionFor, type OAuthSession, type OpenAuthorizationUrl } from "./auth/session.js";
import type { TokenStore } from "./auth/token-store.js";
import { answerInputRequest, applyLogLevel, clientCapabilities, DEFAULT_LOG_LEVEL, registerClientFeatures, withUrlElicitations } from "./client-features.js";
import { describe } from "./connect/describe-error.js";
import { Dialer } from "./connect/dialer.js";
import { MODERN } from "./connect/era.js";
import { DEFAULT_MAX_RESTARTS, Restarts } from "./connect/restarts.js";
import { describeStartupError } from "./connect/startup-error.js";
import { closeTransport, dropReason, StreamReopening, transportKind, type Transport } from "./connect/transports.js";
import { HubError } from "./errors.js";
import { nestedDeeperThan, tooDeep } from "./json-depth.js";
import { DEFAULT_MAX_MESSAGE_BYTES, type MessageTooLargeError } from "./limits.js";
import { ChangeStream } from "./lists/change-stream.js";
import { LIST_KINDS, ServerLists } from "./lists/server-lists.js";
import { remoteDropOf } from "./remote-drop.js";
import { isConnectionClosed, isFromTransport, isTotalTimeout, tooLargeMessage } from "./request-errors.js";
import { StderrTail, type ServerLog } from "./server-log.js";
import { extensionTasks, runsAsTask, sep1686Tasks, ToolTasks } from "./tasks/tasks.js";
import type { ToolTaskProtocol } from "./tasks/tasks.js";
import { createdTaskOf, RawRequests, requiresTasksExtension, serverDeclaresTasksExtension, TASKS_EXTENSION_ID, TasksExtensionClient } from "./tasks/ext-tasks.js";
import type { CreatedTask, RemoteTask } from "./tasks/ext-tasks.js";
import { readSkillDirectory, readSkillFile } from "./skills.js";
import { withTimeout } from "./time-limit.js";
import { callTool } from "./tool-call.js";
import { ProcessGroupTransport } from "./transport/stdio.js";
import { WebSocketClientTransport } from "./transport/websocket.js";
import type { CallToolOptions, ClientHandlers, HubEvent, HubTask, LoadedSkill, RelayedRound, Root, ServerState, TaskMode } from "./types.js";

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

/** A request's SDK options with its idle timeout always set. */
type BoundedOptions = RequestOptions & { timeout: number };

/**
 * One MCP server: starts it (spawning a stdio child or reaching a URL), keeps its lists of
 * tools, resources and prompts, routes requests to it, restarts a stdio server that died (and
 * reconnects a remote one whose connection dropped), and ends it. Never rejects while starting: a failure becomes `status: "failed"`.
 */
export class Connection {
  readonly state: ServerState;
  /** Its tools, resources and prompts, kept fresh. */
  readonly lists: ServerLists;
  private client: Client | undefined;
  private transport: Transport | undefined;
  private readonly restarts: Restarts;
  /** Aborts the startup under way (timeout, garbage on stdout, close()). */
  private startup: AbortController | undefined;
  private terminating = false;
  /** Why the transport last closed, when it says (a message over maxMessageBytes). */
  private closeReason: string | undefined;
  /** Why the hub took a remote server's live connection for dropped (remoteDropOf), until it connects again. */
  private dropCause: string | undefined;
  /** Why the hub ended a legacy SSE connection, for the requests it was carrying. */
  private oversized: MessageTooLargeError | undefined;
  private readonly tail = new StderrTail(20);
  private readonly streams = new StreamReopening();
  private readonly changes = new ChangeStream();
  private readonly dialer: Dialer;
  private readonly tasks: ToolTasks;
  /** The task form of the connected server: SEP-1686, or the tasks extension on a 2026-07-28 server declaring it. */
  private taskProtocol: ToolTaskProtocol = sep1686Tasks;
  /** The extension's requests on the connected server, where it declares the extension (a relayed task's go through it). */
  private extTasks: TasksExtensionClient | undefined;
  private readonly auth: OAuthSession | undefined;

  constructor(
    readonly name: string,
    readonly config: ServerConfig,
    private readonly options: ConnectionOptions,
  ) {
    this.tasks = new ToolTasks(name, options.emit, () => this.taskProtocol);
    this.state = {
      name,
      transport: transportKind(config),
      status: config.disabled ? "disabled" : "connecting",
      toolCount: 0,
      resourceCount: 0,
      promptCount: 0,
      restarts: 0,
    };
    // An OAuth request gets as long as a start-up: both stand between the user and the server.
    this.auth = options.tokens ? oauthSessionFor(name, config, options.tokens, this.startupTimeoutMs) : undefined;
    const log = (line: string): void => options.log.write(name, line);
    this.restarts = new Restarts({
      name,
      state: this.state,
      backoffMs: options.restartBackoffMs,
      maxRestarts: () => this.maxRestarts,
      attempt: () => this.attempt(),
      live: () => (this.state.status === "connected" ? this.client : undefined),
      restarting: () => this.setState({ restarts: this.state.restarts + 1 }),
      restarted: async (client) => {
        await this.changes.renew(client, this.requestTimeoutMs, log);
        for (const kind of LIST_KINDS) options.emit({ type: `${kind}-changed`, server: name });
      },
      leftDown: () => this.leftDown(),
    });
    this.lists = new ServerLists({
      name,
      client: () => this.client,
      connected: () => this.state.status === "connected",
      transport: () => this.state.transport,
      requestTimeoutMs: () => this.requestTimeoutMs,
      log,
      changed: (kind) => {
        this.updateCounts();
        options.emit({ type: `${kind}-changed`, server: name });
      },
    });
    this.dialer = new Dialer({
      name,
      config,
      clientInfo: options.clientInfo,
      handlers: options.handlers,
      roots: options.roots,
      auth: this.auth,
      tail: this.tail,
      streams: this.streams,
      startupTimeoutMs: () => this.startupTimeoutMs,
      maxMessageBytes: () => this.maxMessageBytes,
      log,
      prepare: (client) => this.registerHandlers(client),
      transportError: (client, error) => void this.noticeDrop(client, error),
      closed: (client) => this.onClosed(client),
      oversizedStream: (error) => this.onOversizedStream(error),
      fellBackToSse: () => this.setState({ transport: "sse" }),
      dispose: (client, transport) => this.dispose(client, transport),
    });
  }

  get tools(): Tool[] {
    return this.lists.tools;
  }

  get resources(): Resource[] {
    return this.lists.resources;
  }

  get resourceTemplates(): ResourceTemplateType[] {
    return this.lists.resourceTemplates;
  }

  get prompts(): Prompt[] {
    return this.lists.prompts;
  }

  /** SEP-2640 skills, listed with the resources (a skill's files are resources, their changes announced as such). */
  get skills(): Skill[] {
    return this.lists.skills;
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
    return this.dialer.protocol;
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
    return this.restarts.start();
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
    await this.request(`resources/subscribe ${uri}`, {}, (client, options) => this.changes.subscribe(client, uri, options));
    this.changes.subscriptions.add(uri);
  }

  async unsubscribe(uri: string): Promise<void> {
    this.changes.subscriptions.delete(uri);
    await this.request(`resources/unsubscribe ${uri}`, {}, (client, options) => this.changes.unsubscribe(client, uri, options));
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
    this.restarts.stop();
    // A server still starting has no session to end: it is not given the stdin grace (a `call` that found its tool elsewhere).
    if (terminate || this.state.status === "connecting") this.terminating = true;
    this.startup?.abort(new HubError("closed", "the hub was closed while the server was starting"));
    await this.restarts.settled().catch(() => undefined);
    await this.shutdown();
    if (this.state.status !== "disabled") this.setState({ status: "closed", pid: undefined });
  }

  /** For process 'exit' handlers, where nothing asynchronous runs any more. */
  killSync(): void {
    this.restarts.stop();
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
      const opened = await this.dialer.open(startup);
      transport = opened.transport;
      this.client = opened.client;
      this.transport = transport;
      ({ protocol: this.taskProtocol, ext: this.extTasks } = this.taskProtocolOf(opened.client, transport));
      // A 2026-07-28 server's change stream opens beside the first listings, not after them: one round trip less
      // before the server is ready, and a change made while they run is heard (the listing after it, RefreshQueue.during).
      await Promise.all([
        this.lists.loadAll(opened.client, startup.signal).then(() => this.updateCounts()),
        applyLogLevel(opened.client, this.config.logLevel ?? DEFAULT_LOG_LEVEL, this.startupTimeoutMs, (line) => this.options.log.write(this.name, line)),
        this.changes.open(opened.client, this.startupTimeoutMs, (error) => {
          // A start that failed otherwise closed the client under it: that start's error says why.
          if (this.client === opened.client) this.options.log.write(this.name, `could not open subscriptions/listen: ${describe(error)}`);
        }),
      ]);
      if (this.restarts.stopped) throw new HubError("closed", "the hub was closed");
      this.restarts.connected();
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
        error: `${describeStartupError(reason, this.name, this.config, this.auth)}${tail ? `; stderr: ${tail}` : ""}`,
        stderrTail: this.tail.lines(),
        pid: undefined,
        needsLogin: this.auth?.needsLogin || undefined,
      });
    } finally {
      clearTimeout(timer);
      this.startup = undefined;
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
    for (const kind of LIST_KINDS) {
      client.setNotificationHandler(`notifications/${kind}/list_changed`, () => {
        if (this.client === client) this.lists.announced(kind);
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

  private updateCounts(): void {
    this.setState({ toolCount: this.tools.length, resourceCount: this.resources.length, promptCount: this.prompts.length });
  }

  /** Settles when the restarts under way (if any) have ended: the server is back, or left down. */
  settled(): Promise<void> {
    return this.restarts.settled();
  }

  /** Left down for good: its lists leave the registry, and its state says why in one line. */
  private leftDown(): void {
    this.lists.clear();
    const tries = `${this.maxRestarts} ${this.maxRestarts === 1 ? "try" : "tries"}`;
    this.setState({ toolCount: 0, resourceCount: 0, promptCount: 0, restarting: undefined, error: `${this.state.error ?? "stopped"} (gave up after ${tries} to ${this.state.transport === "stdio" ? "restart" : "reconnect"} it)` });
    for (const kind of LIST_KINDS) this.options.emit({ type: `${kind}-changed`, server: this.name });
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
    let client = this.client && this.state.status === "connected" && !this.restarts.stopped ? this.client : undefined;
    // ready()'s failures are HubErrors, passed on as they are.
    const sent = client ? started(run, client, options) : this.restarts.ready().then((ready) => run((client = ready), options));
    return sent.then(
      (result) => {
        this.restarts.answered();
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

  /** The SDK reopens the event stream: later each time it is cut, and not at all after a few cuts, saying so once. */
  private backOffStream(): void {
    const text = this.streams.cut();
    if (text === undefined) return;
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
    if (this.client !== client || this.restarts.stopped || this.state.status !== "connected") return true;
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
      if (this.restarts.stopped) return new HubError("closed", `the hub was closed during ${what} on server "${server}"`, { server, cause: error });
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
    if (this.restarts.stopped) return;
    const tail = this.tail.summary();
    if (this.oversized) {
      this.setState({ status: "failed", error: `the connection was ended: ${this.oversized.message}` });
      return;
    }
    const what =
      this.closeReason ?? (this.dropCause !== undefined ? `the connection dropped (${this.dropCause})` : `the server closed the connection${this.state.transport === "stdio" ? " (the process exited)" : ""}`);
    // A live server that dropped is started again now, not at its next call: its tools are offered again meanwhile.
    const restart = this.restarts.recovers(wasLive);
    this.setState({
      status: "failed",
      error: `${what}${tail ? `; stderr: ${tail}` : ""}`,
      stderrTail: this.tail.lines(),
      pid: undefined,
      ...(wasLive ? { dropped: this.dropCause ?? dropReason(transport, this.closeReason) } : {}),
      restarting: restart || undefined,
    });
    if (restart) this.restarts.recover();
  }

  private async shutdown(): Promise<void> {
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    this.streams.stop();
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
