import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SseError, SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  ElicitRequestSchema,
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { isStdioServer, type RemoteServerConfig, type ServerConfig } from "../config/schema.js";
import { authenticationRequired, oauthSessionFor, type OAuthSession, type OpenAuthorizationUrl } from "./auth/session.js";
import type { TokenStore } from "./auth/token-store.js";
import { HubError } from "./errors.js";
import { StderrTail, type ServerLog } from "./server-log.js";
import type { CallToolOptions, ElicitationHandler, HubEvent, ServerState } from "./types.js";

export interface ConnectionOptions {
  clientInfo: { name: string; version: string };
  startupTimeoutMs: number;
  toolTimeoutMs: number;
  log: ServerLog;
  emit: (event: HubEvent) => void;
  onElicitation?: ElicitationHandler;
  /** Where remote servers' OAuth tokens are kept; without it no server is logged in to. */
  tokens?: TokenStore;
}

/** Consecutive restarts without one successful request in between before the hub gives up. */
const MAX_RESTARTS = 3;
const RESTART_BACKOFF_MS = 200;
/** A server that printed non-JSON-RPC on stdout gets this long to answer initialize anyway. */
const GARBAGE_GRACE_MS = 1500;

type Transport = StdioClientTransport | StreamableHTTPClientTransport | SSEClientTransport;

/**
 * One MCP server: starts it (spawning a stdio child or reaching a URL), keeps its lists of
 * tools, resources and prompts, routes requests to it, restarts a stdio server that died,
 * and ends it. Never rejects while starting: a failure becomes `status: "failed"`.
 */
export class Connection {
  readonly state: ServerState;
  tools: Tool[] = [];
  resources: Resource[] = [];
  resourceTemplates: ResourceTemplate[] = [];
  prompts: Prompt[] = [];

  private client: Client | undefined;
  private transport: Transport | undefined;
  private starting: Promise<void> | undefined;
  /** Aborts the startup under way (timeout, garbage on stdout, close()). */
  private startup: AbortController | undefined;
  private everConnected = false;
  private restartFailures = 0;
  private gaveUp = false;
  private closing = false;
  private readonly subscriptions = new Set<string>();
  private readonly tail = new StderrTail(20);
  private readonly auth: OAuthSession | undefined;

  constructor(
    readonly name: string,
    readonly config: ServerConfig,
    private readonly options: ConnectionOptions,
  ) {
    this.state = {
      name,
      transport: isStdioServer(config) ? "stdio" : config.type === "sse" ? "sse" : "streamable-http",
      status: config.disabled ? "disabled" : "connecting",
      toolCount: 0,
      resourceCount: 0,
      promptCount: 0,
      restarts: 0,
    };
    this.auth = options.tokens ? oauthSessionFor(name, config, options.tokens) : undefined;
  }

  get startupTimeoutMs(): number {
    return this.config.startupTimeoutMs ?? this.options.startupTimeoutMs;
  }

  /** The server's toolTimeoutMs, else the hub's; also bounds reads, prompts and subscriptions. */
  get requestTimeoutMs(): number {
    return this.config.toolTimeoutMs ?? this.options.toolTimeoutMs;
  }

  /** Connects and loads the lists; never rejects. */
  start(): Promise<void> {
    if (this.state.status === "disabled") return Promise.resolve();
    this.starting ??= this.attempt().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  async callTool(tool: string, args: Record<string, unknown>, options: CallToolOptions = {}): Promise<CallToolResult> {
    return (await this.request(`tools/call ${tool}`, options, (client, requestOptions) =>
      client.callTool({ name: tool, arguments: args }, undefined, {
        ...requestOptions,
        resetTimeoutOnProgress: true,
        onprogress: (progress) => options.onProgress?.(progress),
      }),
    )) as CallToolResult;
  }

  readResource(uri: string): Promise<ReadResourceResult> {
    return this.request(`resources/read ${uri}`, {}, (client, options) => client.readResource({ uri }, options));
  }

  async subscribe(uri: string): Promise<void> {
    await this.request(`resources/subscribe ${uri}`, {}, (client, options) => client.subscribeResource({ uri }, options));
    this.subscriptions.add(uri);
  }

  async unsubscribe(uri: string): Promise<void> {
    this.subscriptions.delete(uri);
    await this.request(`resources/unsubscribe ${uri}`, {}, (client, options) => client.unsubscribeResource({ uri }, options));
  }

  getPrompt(name: string, args: Record<string, string> | undefined): Promise<GetPromptResult> {
    return this.request(`prompts/get ${name}`, {}, (client, options) =>
      client.getPrompt(args ? { name, arguments: args } : { name }, options),
    );
  }

  /** The browser login for a server that needs one (see OAuthSession.login), then connects if it is not connected. */
  async login(open: OpenAuthorizationUrl, timeoutMs?: number): Promise<void> {
    if (!this.auth) throw new HubError("server-error", `server "${this.name}" does not log in with OAuth`, { server: this.name });
    await this.auth.login(open, timeoutMs);
    this.setState({ needsLogin: undefined });
    if (this.state.status !== "connected") await this.start();
  }

  /** Closes the transport; a stdio child gets stdin closed, then SIGTERM, then SIGKILL. */
  async close(): Promise<void> {
    this.closing = true;
    this.startup?.abort(new HubError("closed", "the hub was closed while the server was starting"));
    await this.starting?.catch(() => undefined);
    await this.shutdown();
    if (this.state.status !== "disabled") this.setState({ status: "closed", pid: undefined });
  }

  /** For process 'exit' handlers, where nothing asynchronous runs any more. */
  killSync(): void {
    this.closing = true;
    const pid = this.transport instanceof StdioClientTransport ? this.transport.pid : null;
    if (pid !== null) killQuietly(pid, "SIGKILL");
  }

  private async attempt(): Promise<void> {
    const started = performance.now();
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
      await this.loadLists(opened.client, startup.signal);
      if (this.closing) throw new HubError("closed", "the hub was closed");
      this.everConnected = true;
      const info = opened.client.getServerVersion();
      this.setState({
        status: "connected",
        serverName: info?.name,
        serverVersion: info?.version,
        connectMs: Math.round(performance.now() - started),
        needsLogin: undefined,
        pid: transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined,
        stderrTail: undefined,
      });
    } catch (error) {
      const client = this.client;
      this.client = undefined;
      this.transport = undefined;
      if (client) await client.close().catch(() => undefined);
      else if (transport) await closeTransport(transport);
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
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args ?? [],
        // The SDK adds getDefaultEnvironment() (PATH, HOME, ...) under these; nothing else of ours leaks.
        env: config.env ?? {},
        ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
        stderr: "pipe",
      });
      this.tail.clear();
      transport.stderr?.on("data", (chunk: Buffer) => {
        for (const line of this.tail.push(chunk.toString("utf8"))) this.options.log.write(this.name, line);
      });
      return { client: await this.connectClient(transport, startup), transport };
    }
    const url = new URL(config.url);
    const options = {
      ...(config.headers ? { requestInit: { headers: config.headers } } : {}),
      ...(this.auth ? { authProvider: this.auth.provider, fetch: this.auth.fetch } : {}),
    };
    if (config.type === "sse") {
      const transport = new SSEClientTransport(url, options);
      return { client: await this.connectClient(transport, startup), transport };
    }
    const streamable = new StreamableHTTPClientTransport(url, options);
    try {
      return { client: await this.connectClient(streamable, startup), transport: streamable };
    } catch (error) {
      await closeTransport(streamable);
      // The spec's backwards compatibility: a 4xx to the POST of initialize means an old
      // server that only speaks the HTTP+SSE transport of 2024-11-05; 401 and 403 are about credentials.
      if (!(error instanceof StreamableHTTPError) || error.code === undefined || error.code < 400 || error.code >= 500 || isAuthStatus(error.code)) {
        throw error;
      }
      const sse = new SSEClientTransport(url, options);
      try {
        const client = await this.connectClient(sse, startup);
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

  private async connectClient(transport: Transport, startup: AbortController): Promise<Client> {
    const client = new Client(this.options.clientInfo, {
      capabilities: this.options.onElicitation ? { elicitation: { form: { applyDefaults: true } } } : {},
    });
    let initialized = false;
    let garbageTimer: NodeJS.Timeout | undefined;
    client.onerror = (error) => {
      if (!isUnparsableOutput(error)) return;
      this.options.log.write(this.name, `stdout is not JSON-RPC: ${describe(error)}`);
      // Some servers print a banner before they start speaking JSON-RPC; give them a moment.
      garbageTimer ??= setTimeout(() => {
        if (!initialized) startup.abort(new HubError("server-error", `wrote something that is not JSON-RPC on stdout (${describe(error)})`));
      }, GARBAGE_GRACE_MS);
    };
    client.onclose = () => {
      clearTimeout(garbageTimer);
      this.onClosed(client);
    };
    this.registerHandlers(client);
    try {
      await client.connect(transport, { signal: startup.signal, timeout: this.startupTimeoutMs + 1000 });
      initialized = true;
      return client;
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    } finally {
      clearTimeout(garbageTimer);
    }
  }

  private registerHandlers(client: Client): void {
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (this.client !== client) return;
      await this.refresh(client, "tools");
    });
    client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
      if (this.client !== client) return;
      await this.refresh(client, "resources");
    });
    client.setNotificationHandler(PromptListChangedNotificationSchema, async () => {
      if (this.client !== client) return;
      await this.refresh(client, "prompts");
    });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      this.options.emit({ type: "resource-updated", server: this.name, uri: notification.params.uri });
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      const { level, data } = notification.params;
      this.options.log.write(this.name, `log ${level}: ${typeof data === "string" ? data : JSON.stringify(data)}`);
    });
    const onElicitation = this.options.onElicitation;
    if (onElicitation) {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        const params = request.params;
        if (params.mode === "url") throw new McpError(ErrorCode.InvalidParams, "URL-mode elicitation is not supported");
        return onElicitation(params, this.name);
      });
    }
  }

  private async refresh(client: Client, kind: "tools" | "resources" | "prompts"): Promise<void> {
    try {
      await this.loadList(client, kind);
    } catch (error) {
      this.options.log.write(this.name, `could not refresh ${kind}: ${describe(error)}`);
      return;
    }
    this.updateCounts();
    this.options.emit({ type: `${kind}-changed`, server: this.name });
  }

  private async loadLists(client: Client, signal: AbortSignal): Promise<void> {
    await Promise.all([
      this.loadList(client, "tools", signal),
      // A server whose resources or prompts listing fails still serves its tools.
      this.loadList(client, "resources", signal).catch((error: unknown) => {
        if (signal.aborted) throw error;
        this.options.log.write(this.name, `could not list resources: ${describe(error)}`);
      }),
      this.loadList(client, "prompts", signal).catch((error: unknown) => {
        if (signal.aborted) throw error;
        this.options.log.write(this.name, `could not list prompts: ${describe(error)}`);
      }),
    ]);
    this.updateCounts();
  }

  private async loadList(client: Client, kind: "tools" | "resources" | "prompts", signal?: AbortSignal): Promise<void> {
    const capabilities = client.getServerCapabilities() ?? {};
    const options: RequestOptions = signal ? { signal } : {};
    if (kind === "tools") {
      this.tools = capabilities.tools ? await paginate((params) => client.listTools(params, options), (r) => r.tools) : [];
    } else if (kind === "resources") {
      [this.resources, this.resourceTemplates] = capabilities.resources
        ? await Promise.all([
            paginate((params) => client.listResources(params, options), (r) => r.resources),
            paginate((params) => client.listResourceTemplates(params, options), (r) => r.resourceTemplates),
          ])
        : [[], []];
    } else {
      this.prompts = capabilities.prompts ? await paginate((params) => client.listPrompts(params, options), (r) => r.prompts) : [];
    }
  }

  private updateCounts(): void {
    this.setState({ toolCount: this.tools.length, resourceCount: this.resources.length, promptCount: this.prompts.length });
  }

  /** The client of a live server, restarting a stdio server that died (bounded, with backoff). */
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
      if (!this.everConnected || this.gaveUp || this.restartFailures >= MAX_RESTARTS) {
        if (this.everConnected && !this.gaveUp) {
          this.gaveUp = true;
          this.setState({ error: `${this.state.error ?? "stopped"} (gave up after ${MAX_RESTARTS} restarts)` });
        }
        throw new HubError("server-unavailable", `server "${this.name}" is unavailable: ${this.state.error ?? this.state.status}`, {
          server: this.name,
        });
      }
      this.starting = this.restart().finally(() => {
        this.starting = undefined;
      });
    }
  }

  private async restart(): Promise<void> {
    const delay = RESTART_BACKOFF_MS * 2 ** this.restartFailures;
    this.restartFailures++;
    await new Promise((resolve) => setTimeout(resolve, delay));
    if (this.closing) return;
    this.setState({ restarts: this.state.restarts + 1 });
    await this.attempt();
    const client = this.client;
    if (!client || this.state.status !== "connected") return;
    // Tool calls wait in ready() until this ends: renew together, each bounded like any request.
    await Promise.all(
      [...this.subscriptions].map((uri) =>
        client.subscribeResource({ uri }, { timeout: this.requestTimeoutMs }).catch((error: unknown) => {
          this.options.log.write(this.name, `could not renew the subscription to ${uri}: ${describe(error)}`);
        }),
      ),
    );
    for (const kind of ["tools", "resources", "prompts"] as const) this.options.emit({ type: `${kind}-changed`, server: this.name });
  }

  /** Runs one request on the live client, bounded by `timeoutMs` (default requestTimeoutMs), errors made HubErrors. */
  private async request<T>(
    what: string,
    { signal, timeoutMs = this.requestTimeoutMs }: { signal?: AbortSignal; timeoutMs?: number },
    run: (client: Client, options: RequestOptions) => Promise<T>,
  ): Promise<T> {
    if (signal?.aborted) throw new HubError("cancelled", `${what} on server "${this.name}" was cancelled`, { server: this.name });
    // The common case stays synchronous: a round trip is a fraction of a millisecond over stdio.
    const client = this.client && this.state.status === "connected" && !this.closing ? this.client : await this.ready();
    try {
      const result = await run(client, signal ? { timeout: timeoutMs, signal } : { timeout: timeoutMs });
      this.restartFailures = 0;
      return result;
    } catch (error) {
      throw this.requestError(error, what, signal, timeoutMs);
    }
  }

  private requestError(error: unknown, what: string, signal: AbortSignal | undefined, timeoutMs: number): HubError {
    const server = this.name;
    if (error instanceof HubError) return error;
    if (signal?.aborted) return new HubError("cancelled", `${what} on server "${server}" was cancelled`, { server, cause: error });
    if (this.auth?.wantsLogin(error)) {
      this.setState({ needsLogin: true });
      return new HubError("needs-login", `${what} on server "${server}" needs a new login`, { server, cause: error });
    }
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return new HubError("timeout", `${what} on server "${server}" timed out after ${timeoutMs} ms without progress`, { server, cause: error });
    }
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
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
    this.client = undefined;
    this.transport = undefined;
    if (this.closing) return;
    const tail = this.tail.summary();
    this.setState({
      status: "failed",
      error: `the server closed the connection${this.state.transport === "stdio" ? " (the process exited)" : ""}${tail ? `; stderr: ${tail}` : ""}`,
      stderrTail: this.tail.lines(),
      pid: undefined,
    });
  }

  private async shutdown(): Promise<void> {
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
      await withTimeout(transport.terminateSession(), 1000).catch(() => undefined);
    }
    if (client) await client.close().catch(() => undefined);
    else if (transport) await closeTransport(transport);
    if (transport instanceof StdioClientTransport && this.state.pid !== undefined) killQuietly(this.state.pid, "SIGKILL");
  }

  private describeStartupError(error: unknown): string {
    const config = this.config;
    const authFailure = this.auth?.describeFailure(error);
    if (authFailure !== undefined) return authFailure;
    if (error instanceof StreamableHTTPError && typeof error.code === "number" && isAuthStatus(error.code)) {
      return authenticationRequired(error.code, error.message.replace(/^Streamable HTTP error: (Error POSTing to endpoint: )?/, ""), "the server refused it");
    }
    if (isStdioServer(config) && isErrnoException(error) && error.code === "ENOENT") {
      return `command not found: ${config.command}`;
    }
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      return isStdioServer(config) ? "the process exited during startup" : "the server closed the connection during startup";
    }
    if (!isStdioServer(config)) return `cannot connect to ${(config as RemoteServerConfig).url}: ${describe(error)}`;
    return describe(error);
  }

  private setState(patch: Partial<ServerState>): void {
    Object.assign(this.state, patch);
    for (const key of Object.keys(patch) as (keyof ServerState)[]) if (patch[key] === undefined) delete this.state[key];
    if ("status" in patch || "error" in patch) {
      this.options.emit({ type: "server-status", state: { ...this.state } });
    }
  }
}

async function paginate<R extends { nextCursor?: string | undefined }, T>(
  list: (params: { cursor?: string }) => Promise<R>,
  items: (result: R) => T[],
): Promise<T[]> {
  const all: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const result = await list(cursor === undefined ? {} : { cursor });
    all.push(...items(result));
    cursor = result.nextCursor;
    // A server that hands back a cursor it already gave would otherwise loop forever.
    if (cursor !== undefined && seen.has(cursor)) break;
    if (cursor !== undefined) seen.add(cursor);
  } while (cursor !== undefined);
  return all;
}

async function closeTransport(transport: Transport): Promise<void> {
  await transport.close().catch(() => undefined);
}

function isAuthStatus(status: number): boolean {
  return status === 401 || status === 403;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]).finally(() => clearTimeout(timer));
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string";
}

/** What the SDK's stdio reader reports for a line that is not a JSON-RPC message. */
function isUnparsableOutput(error: Error): boolean {
  return error instanceof SyntaxError || error.name === "ZodError" || error.constructor.name.includes("ZodError");
}

/** One line from any error, with the network cause fetch hides under "fetch failed". */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if ((error instanceof StreamableHTTPError || error instanceof SseError) && typeof error.code === "number" && error.code > 0) {
    const message = error.message.replace(/^(Streamable HTTP error|SSE error): /, "");
    return `HTTP ${error.code}: ${message}`.replace(/\s*\n\s*/g, " ").slice(0, 500);
  }
  const cause = error.cause;
  const causeText =
    cause instanceof Error && error.message === "fetch failed" ? `: ${(cause as NodeJS.ErrnoException).code ?? cause.message}` : "";
  return `${error.message}${causeText}`.replace(/\s*\n\s*/g, " ").slice(0, 500);
}
