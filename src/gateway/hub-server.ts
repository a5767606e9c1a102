import { CLIENT_CAPABILITIES_META_KEY, McpServer, ProtocolError, ProtocolErrorCode, ResourceNotFoundError, UriTemplate } from "@modelcontextprotocol/server";
import type { CallToolResult, ClientCapabilities, InputRequiredResult, Server, ServerContext, Tool } from "@modelcontextprotocol/server";
import { refusalMessage, type ApprovalMode, type ApprovalRules, type ServerApprovalConfig } from "../agent/approval.js";
import type { ToolFilter } from "../agent/tool-host.js";
import { CallerPolicy, type PolicySubject } from "../host/caller-policy.js";
import { HubError } from "../mcp/errors.js";
import { requiresTasksExtension, TASKS_EXTENSION_ID, type CreatedTask, type RemoteTask } from "../mcp/tasks/ext-tasks.js";
import { answerTasksFlat, declaresTasksExtension, serveTaskRequests, tasksExtensionRequired, type TaskStore } from "../mcp/tasks/ext-tasks-server.js";
import type { Hub } from "../mcp/hub.js";
import { HubLogRelay } from "./hub-server-logs.js";
import { readableSkills, serveSkills, skillFileOwner } from "./hub-server-skills.js";
import { ClientSubscriptions, type ReadableOwner } from "./hub-server-subscriptions.js";
import type { HubEvent, HubPrompt, HubTool, RelayedRound } from "../mcp/types.js";
import { PACKAGE_VERSION } from "../version.js";

export type HubServerSource = Pick<
  Hub,
  "servers" | "tools" | "currentTools" | "callTool" | "relayToolCall" | "relayedTask" | "resources" | "resourceTemplates" | "readResource" | "prompts" | "getPrompt" | "relayPrompt" | "complete" | "serversOffering" | "on" | "subscribe" | "unsubscribe" | "skillEntries" | "readSkillDirectory"
>;

export interface HubServerPolicy {
  toolFilter?: ToolFilter;
  /** Nobody can be asked over MCP here: what the policy does not allow is refused with a tool result. */
  approve: ApprovalMode;
  servers: Readonly<Record<string, ServerApprovalConfig>>;
  /** The config's allow and deny rules by pattern. */
  rules?: ApprovalRules;
}

/**
 * Every configured server's tools, resources and prompts as one MCP server, as far as the
 * approval policy lets them through unasked (nobody can be asked here): tools under the
 * registry's exposed names (the allow-list applied), resources and prompts of the servers the
 * policy lets be read, prompts under their own names (or `server__name` where two servers
 * offer the same). A call is judged again when it comes: the registry may have changed.
 * `caller` is who asks (the gateway's caller, from its key; "stdio" for `serve hub`).
 *
 * It serves the tasks extension (2026-07-28, `io.modelcontextprotocol/tasks`) from `tasks`, the store of the
 * endpoint (one for every server instance it makes). A server behind it that declares the extension decides, as it
 * would for this client: the call goes to it with this client's capabilities, and a task it answers with is relayed
 * (held in the store under an id of the store's; its status, result, error and questions are the server's, and the
 * client's answers go back to it), as is its -32021 for a task-only tool called without the extension. A call of a
 * SEP-1686 server's task tool that declares the extension runs in the background as a task of the hub's.
 *
 * It passes on what the servers behind it offer besides, each only where a server the caller may read offers it and
 * only about what the caller may see: `completion/complete` (to the prompt's or template's server), their log messages
 * (HubLogRelay), resource subscriptions (`resources/subscribe` on a connection that outlives its requests; a
 * 2026-07-28 client's subscriptions/listen is narrowed before the SDK's entry serves it: see hub-server-subscriptions),
 * and skills (`skills/list`, `skills/get`, and their files by `resources/read`: see hub-server-skills).
 *
 * `legacyRequest`: the instance serves one 2025-era request on /mcp (the SDK's stateless fallback), not a connection
 * (`serve hub`) nor a 2026-07-28 request (whose subscriptions live on its listen's stream).
 */
export function createHubServer(hub: HubServerSource, options: HubServerPolicy, tasks: TaskStore, caller = "stdio", legacyRequest = false): McpServer {
  const mcp = new McpServer({ name: "toolbridge-hub", title: "toolbridge hub", version: PACKAGE_VERSION });
  const server = mcp.server;
  server.registerCapabilities({ tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true }, extensions: { [TASKS_EXTENSION_ID]: {} } });
  // The one policy every route takes (src/host/caller-policy.ts); nobody can be asked here, so "ask" is a refusal.
  const policy = callerPolicy(options);
  const allows = (subject: PolicySubject) => policy.allowsUnasked(caller, subject);
  const offered = (): readonly HubTool[] => (options.toolFilter ? hub.tools().filter(options.toolFilter) : hub.tools());
  const readable = <T extends { server: string; uri?: string; uriTemplate?: string }>(items: readonly T[]): T[] =>
    items.filter((item) => allows({ kind: "resource", server: item.server, uri: item.uri ?? item.uriTemplate ?? "" }));
  const promptable = (items: readonly HubPrompt[]): HubPrompt[] => items.filter((item) => allows({ kind: "prompt", server: item.server, name: item.name }));
  // Reading a server's resources and prompts is judged per server: what the caller may read of it, it may complete.
  const reads = (server: string) => allows({ kind: "resource", server, uri: "" });
  // Offered only where a server the caller may read offers it: a client is not promised what no server can give it.
  const completes = hub.serversOffering("completions").some(reads);
  if (completes) server.registerCapabilities({ completions: {} });
  // Logs are about a server: the caller sees those of a server it may read, or run a tool of, unasked.
  const sees = (name: string) => reads(name) || offered().some((tool) => tool.server === name && allows({ kind: "tool", tool }));
  const logs = new HubLogRelay(hub, sees);
  if (hub.serversOffering("logging").some(sees)) {
    server.registerCapabilities({ logging: {} });
    // Applied to what this client is sent, not relayed: the servers behind are shared by every client of the hub.
    server.setRequestHandler("logging/setLevel", (request) => {
      logs.setLevel(request.params.level);
      return {};
    });
  }
  const subscribes = hub.serversOffering("subscriptions").some(reads);
  const subscriptions = subscribes ? new ClientSubscriptions(hub) : undefined;
  // A 2025-era request on /mcp is served alone and nothing outlives it to carry an update: not promised there
  // (a client that asks anyway is told why by the handler below).
  if (subscriptions && !legacyRequest) server.registerCapabilities({ resources: { subscribe: true } });
  if (hub.serversOffering("skills").some(reads)) serveSkills(server, hub, reads);
  servedHere.set(mcp, { logs, ...(subscriptions ? { subscriptions } : {}) });

  server.setRequestHandler('tools/list', async () => {
    await hub.currentTools();
    return { tools: offered().filter((tool) => allows({ kind: "tool", tool })).map(toMcpTool) };
  });
  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult | InputRequiredResult> => {
    const params = request.params;
    const tool = offered().find((candidate) => candidate.name === params.name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
    const decision = policy.decide(caller, { kind: "tool", tool });
    if (decision.action !== "allow") {
      const text = decision.action === "ask" || decision.rule !== undefined ? refusalMessage(tool.name, { run: false, asked: false, ...(decision.action === "refuse" ? { rule: decision.rule } : {}) }) : `Not run: ${decision.reason}`;
      return { content: [{ type: "text", text }], isError: true };
    }
    const args = params.arguments ?? {};
    if (declaresTasksExtension(ctx) && runsAsHubTask(tool)) {
      const task = tasks.start(async (signal) => {
        try {
          return await hub.callTool(tool.name, args, { signal });
        } catch (error) {
          return callFailed(tool, error);
        }
      });
      // No CallToolResult, but taken for one by the SDK, which adds an empty content (answerTasksFlat takes it off).
      return task as unknown as CallToolResult;
    }
    const round = relayedRound(server, ctx);
    const signal = ctx.mcpReq.signal;
    const outcome = await logs.during(ctx, tool.server, () => hub.relayToolCall(tool.name, args, round, { signal })).catch((error: unknown) => {
      throwRefusedRound(error, round);
      // A task-only tool: a 2026-07-28 client hears so (-32021); a 2025-11-25 one cannot declare the extension, and
      // is answered with the result of a task of the hub's own, waited for here.
      if (requiresTasksExtension(causeOf(error))) {
        if (ctx.mcpReq.envelope === undefined) return hub.callTool(tool.name, args, { signal }).catch((failed: unknown) => callFailed(tool, failed));
        throw tasksExtensionRequired(relayed(error).message);
      }
      return callFailed(tool, error);
    });
    if (!isTask(outcome)) return outcome;
    // A task, taken for a tool result by the SDK, which adds an empty content (answerTasksFlat takes it off).
    return tasks.relay(outcome, relayedTask(hub, tool.server, outcome.taskId)) as unknown as CallToolResult;
  });
  serveTaskRequests(server, tasks);
  answerTasksFlat(server);

  server.setRequestHandler('resources/list', async () => ({ resources: readable(await hub.resources()).map(({ server: _server, ...resource }) => resource) }));
  server.setRequestHandler('resources/templates/list', async () => ({
    resourceTemplates: readable(await hub.resourceTemplates()).map(({ server: _server, ...template }) => template),
  }));
  // Read from a server the policy lets be read, never left to the hub to pick among all of them.
  const owners = resourceOwners(hub, options);
  const readableOwner = (uri: string) => owners(caller, uri);
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const { uri } = request.params;
    const owner = await readableOwner(uri);
    // A URI no readable server has, or one its server says it does not have, is resource-not-found (-32002).
    if (owner === undefined) throw new ResourceNotFoundError(uri);
    try {
      return await logs.during(ctx, owner, () => hub.readResource(uri, owner));
    } catch (error) {
      if (isNotFound(error)) throw new ResourceNotFoundError(uri);
      throw relayed(error);
    }
  });
  if (subscriptions) {
    server.setRequestHandler("resources/subscribe", async (request, ctx) => {
      const { uri } = request.params;
      // Where the instance ends with the request (/mcp, stateless), nothing outlives it to carry an update.
      if (ctx.http !== undefined) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, "resources/subscribe: this endpoint is stateless and sends no update outside a request; a 2026-07-28 client hears of changes on subscriptions/listen");
      const owner = await readableOwner(uri);
      if (owner === undefined) throw new ResourceNotFoundError(uri);
      if (!hub.serversOffering("subscriptions").includes(owner)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `resources/subscribe: the server of ${uri} sends no updates of its resources`);
      try {
        await subscriptions.subscribe(owner, uri);
      } catch (error) {
        throw error instanceof ProtocolError ? error : relayed(error);
      }
      return {};
    });
    server.setRequestHandler("resources/unsubscribe", (request) => {
      subscriptions.unsubscribe(request.params.uri);
      return {};
    });
  }

  server.setRequestHandler('prompts/list', async () => ({
    prompts: promptNames(promptable(await hub.prompts())).map(({ exposed, prompt: { server: _server, ...prompt } }) => ({ ...prompt, name: exposed })),
  }));
  if (completes) {
    server.setRequestHandler("completion/complete", async (request, ctx) => {
      const { ref } = request.params;
      // The owner among what this caller may read, as for a read or a prompt; what it may not is unknown here.
      let owner: string | undefined;
      let params = request.params;
      if (ref.type === "ref/prompt") {
        const entry = promptNames(promptable(await hub.prompts())).find((candidate) => candidate.exposed === ref.name);
        if (!entry) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
        owner = entry.prompt.server;
        params = { ...params, ref: { ...ref, name: entry.prompt.name } };
      } else {
        owner =
          readable(await hub.resourceTemplates()).find((template) => template.uriTemplate === ref.uri)?.server ??
          readable(await hub.resources()).find((resource) => resource.uri === ref.uri)?.server;
        if (owner === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
      }
      // A server that offers no completions has none to give: asking it would only be an error.
      if (!hub.serversOffering("completions").includes(owner)) return { completion: { values: [] } };
      try {
        return await logs.during(ctx, owner, () => hub.complete(params, owner));
      } catch (error) {
        throw relayed(error);
      }
    });
  }

  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const entry = promptNames(promptable(await hub.prompts())).find((candidate) => candidate.exposed === request.params.name);
    if (!entry) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
    const round = relayedRound(server, ctx);
    try {
      return await logs.during(ctx, entry.prompt.server, () => hub.relayPrompt(entry.prompt.name, request.params.arguments, entry.prompt.server, round));
    } catch (error) {
      throwRefusedRound(error, round);
      throw relayed(error);
    }
  });
  return mcp;
}

function callerPolicy(options: HubServerPolicy): CallerPolicy {
  return new CallerPolicy({ approve: options.approve, servers: options.servers, ...(options.toolFilter ? { toolFilter: options.toolFilter } : {}), ...(options.rules ? { rules: options.rules } : {}) });
}

/**
 * The server a caller may read a URI from, among those the policy lets be read: one that lists it, else one with a
 * skill whose folder holds it, else one with a template it matches.
 */
export function resourceOwners(hub: Pick<HubServerSource, "resources" | "resourceTemplates" | "skillEntries">, options: HubServerPolicy): ReadableOwner {
  const policy = callerPolicy(options);
  return async (caller, uri) => {
    const reads = (server: string) => policy.allowsUnasked(caller, { kind: "resource", server, uri });
    return (
      (await hub.resources()).find((resource) => resource.uri === uri && reads(resource.server))?.server ??
      skillFileOwner(await readableSkills(hub, reads), uri) ??
      (await hub.resourceTemplates()).find((template) => reads(template.server) && new UriTemplate(template.uriTemplate).match(uri) !== null)?.server
    );
  };
}

/**
 * A server's error as this endpoint's client gets it: the server's own code (a bad argument
 * stays -32602, not an internal error), and its words without an "MCP error N: " prefix,
 * which the client's SDK puts before the message itself.
 */
function relayed(error: unknown): ProtocolError {
  const cause = causeOf(error) as { code?: unknown } | undefined;
  const code = typeof cause?.code === "number" && cause.code < 0 ? cause.code : ProtocolErrorCode.InvalidParams;
  const message = (error instanceof Error ? error.message : String(error)).replace(/(MCP error -?\d+: )+/g, "");
  return new ProtocolError(code, message);
}

/**
 * What a server behind the hub may need of this request's client (2026-07-28 multi-round-trip):
 * the client's answers and the server's request state, passed on untouched, and what the client
 * can answer. A 2025-11-25 client is asked by the SDK's requests in our name and its answers come
 * back the same way, so one relay serves both eras.
 */
function relayedRound(server: Server, ctx: ServerContext): RelayedRound {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const clientCapabilities = (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? server.getClientCapabilities();
  const requestState = ctx.mcpReq.requestState<unknown>();
  return {
    ...(ctx.mcpReq.inputResponses ? { inputResponses: ctx.mcpReq.inputResponses } : {}),
    ...(typeof requestState === "string" ? { requestState } : {}),
    ...(clientCapabilities ? { clientCapabilities } : {}),
  };
}

/** The server's own error behind a HubError (the client package's ProtocolError, another class than the server package's). */
function causeOf(error: unknown): unknown {
  return error instanceof HubError ? error.cause : undefined;
}

function isTask(outcome: CallToolResult | InputRequiredResult | CreatedTask): outcome is CreatedTask {
  return outcome.resultType === "task";
}

/** A task a server behind the hub answered a relayed call with, reached through the hub; its errors relayed as the server gave them. */
function relayedTask(hub: HubServerSource, server: string, taskId: string): RemoteTask {
  const task = hub.relayedTask(server, taskId);
  const passOn = <T>(request: Promise<T>): Promise<T> =>
    request.catch((error: unknown) => {
      throw relayed(error);
    });
  return { get: () => passOn(task.get()), update: (inputResponses) => passOn(task.update(inputResponses)), cancel: () => passOn(task.cancel()), watch: task.watch };
}

/** A server's protocol error for a round that carried answers (a request state it refuses, say) is the client's to see as that error. */
function throwRefusedRound(error: unknown, round: RelayedRound): void {
  if (round.inputResponses === undefined && round.requestState === undefined) return;
  const cause = causeOf(error) as { code?: unknown; message?: unknown; data?: unknown } | undefined;
  if (typeof cause?.code === "number" && typeof cause.message === "string") throw new ProtocolError(cause.code, cause.message.replace(/^MCP error -?\d+: /, ""), cause.data);
}

/** Where the hub's list changes go: a 2026-07-28 client hears them on its subscriptions/listen stream, a 2025-11-25 one as notifications. */
export interface HubChangeNotifier {
  toolsChanged(): void;
  promptsChanged(): void;
  resourcesChanged(): void;
  /** `server` owns the resource: a 2025-11-25 client hears of the resources it subscribed to, at their servers. */
  resourceUpdated(uri: string, server: string): void;
  /** A server's log message; where there is no connection to send it on, it is heard during requests only (HubLogRelay). */
  log?(event: Extract<HubEvent, { type: "log" }>): void;
  /** The connection is gone: what it held at the servers is let go. */
  close?(): void;
}

/** The changes of the servers behind the hub, told to the hub's own clients; returns the unsubscribe function (which closes the notifier). */
export function publishHubChanges(hub: { on?: (listener: (event: HubEvent) => void) => () => void }, notify: HubChangeNotifier): () => void {
  const off =
    hub.on?.((event) => {
      if (event.type === "tools-changed") notify.toolsChanged();
      else if (event.type === "prompts-changed") notify.promptsChanged();
      else if (event.type === "resources-changed") notify.resourcesChanged();
      else if (event.type === "resource-updated") notify.resourceUpdated(event.uri, event.server);
      else if (event.type === "log") notify.log?.(event);
    }) ?? (() => undefined);
  return () => {
    off();
    notify.close?.();
  };
}

/** What each hub server holds for its one client: a long-lived one's notifier passes it what comes (serverNotifier). */
const servedHere = new WeakMap<McpServer, { logs: HubLogRelay; subscriptions?: ClientSubscriptions }>();

/**
 * The notifier of one long-lived hub server (stdio: one per connection). A 2025-11-25 client (its handshake ends in
 * `initialized`) hears every log message as it comes and the updates of the resources it subscribed to; a 2026-07-28
 * one hears of changes on its subscriptions/listen stream, which the SDK's entry filters by what it names.
 */
export function serverNotifier(mcp: McpServer): HubChangeNotifier {
  const held = servedHere.get(mcp);
  let legacy = false;
  mcp.server.oninitialized = () => {
    legacy = true;
    held?.logs.forwardAll(mcp);
  };
  return {
    log: (event) => held?.logs.onEvent(event),
    toolsChanged: () => mcp.sendToolListChanged(),
    promptsChanged: () => mcp.sendPromptListChanged(),
    resourcesChanged: () => mcp.sendResourceListChanged(),
    resourceUpdated: (uri, server) => {
      if (legacy && !held?.subscriptions?.wants(server, uri)) return;
      void mcp.server.sendResourceUpdated({ uri }).catch(() => undefined);
    },
    close: () => held?.subscriptions?.close(),
  };
}

/**
 * Whether a call of `tool` that declares the extension runs as a task of the hub's: a SEP-1686 (2025-11-25) server's
 * tool that may run as one (`taskSupport` optional or required). The task's call is the hub's own: a question the
 * work behind it asks is not relayed to this client. (2026-07-28 tools say nothing of tasks: their servers decide.)
 */
function runsAsHubTask(tool: HubTool): boolean {
  const support = tool.execution?.taskSupport;
  return support !== undefined && support !== "forbidden";
}

function callFailed(tool: HubTool, error: unknown): CallToolResult {
  return { content: [{ type: "text", text: `Error: calling "${tool.name}" failed: ${error instanceof Error ? error.message : String(error)}` }], isError: true };
}

function isNotFound(error: unknown): boolean {
  if (!(error instanceof HubError)) return false;
  const cause = error.cause as { code?: unknown } | undefined;
  return error.code === "unknown-resource" || cause?.code === ProtocolErrorCode.ResourceNotFound;
}

function toMcpTool(tool: HubTool): Tool {
  return {
    name: tool.name,
    inputSchema: tool.inputSchema as Tool["inputSchema"],
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema as Tool["outputSchema"] } : {}),
    ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
  };
}

/** A prompt name two servers share is qualified with the server's, so each stays reachable. */
function promptNames(prompts: readonly HubPrompt[]): { exposed: string; prompt: HubPrompt }[] {
  const counts = new Map<string, number>();
  for (const prompt of prompts) counts.set(prompt.name, (counts.get(prompt.name) ?? 0) + 1);
  return prompts.map((prompt) => ({ exposed: (counts.get(prompt.name) ?? 0) > 1 ? `${prompt.server}__${prompt.name}` : prompt.name, prompt }));
}
