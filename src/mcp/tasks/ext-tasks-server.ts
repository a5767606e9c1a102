import { randomUUID } from "node:crypto";
import { z } from "zod";
import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode, SUBSCRIPTION_ID_META_KEY } from "@modelcontextprotocol/server";
import type { CallToolResult, JSONRPCMessage, JSONRPCNotification, McpHttpHandler, RequestId, Server, ServerContext, Transport } from "@modelcontextprotocol/server";
import { declaresExtension, ENDED_TASK_STATUSES, MAX_INPUT_REQUESTS, MISSING_REQUIRED_CLIENT_CAPABILITY, TASK_NOTIFICATION, TASKS_EXTENSION_ID } from "./ext-tasks.js";
import type { CreatedTask, DetailedTask, RemoteTask, TaskStatusWatch } from "./ext-tasks.js";

/**
 * The server side of the MCP Tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`, 2026-07-28), on SDK v2's
 * server package, which has none: `tasks/get`, `tasks/update` and `tasks/cancel` are custom request handlers, and
 * the SDK's own `tools/call` handler, which holds its result to a CallToolResult, lets a flat CreateTaskResult
 * through with an empty `content` added, taken off again on the way out (answerTasksFlat). That handler is kept
 * rather than `fallbackRequestHandler` (the test server's way), since a fallback answers every method that has
 * no handler: an unknown method then gets an in-band error, not HTTP 404, and a 2025-11-25 client loses the SDK's
 * own shim that puts an `input_required` result to it as requests. Imports only the SDK, like the client side
 * (ext-tasks.ts); the extension's test server shares its checks.
 */

/** Whether a request declares the extension in its per-request capabilities (the 2026-07-28 `_meta` envelope). */
export function declaresTasksExtension(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return declaresExtension(envelope?.[CLIENT_CAPABILITIES_META_KEY]);
}

/** -32021 (Missing Required Client Capability) naming the extension, with `message`. */
export function tasksExtensionRequired(message: string): ProtocolError {
  return new ProtocolError(MISSING_REQUIRED_CLIENT_CAPABILITY, message, { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } });
}

/** Refuses a request of the extension's own (`tasks/get` …) that does not declare it, as the extension says. */
export function requireTasksExtension(method: string, ctx: ServerContext): void {
  if (!declaresTasksExtension(ctx)) throw tasksExtensionRequired(`${method} needs the ${TASKS_EXTENSION_ID} extension in the request's capabilities`);
}

export interface TaskStoreOptions {
  /** Tasks held at once, running or ended and not yet expired (256). */
  maxTasks?: number;
  /** How long a task is held from its creation (ttlMs, 1 hour); one still running then is cancelled. */
  ttlMs?: number;
  /** The poll interval suggested to clients (500 ms). */
  pollIntervalMs?: number;
  /** Subscriptions to task status notifications open at once, all clients together (256). */
  maxWatches?: number;
}

/** A subscription to the status notifications of some tasks: the ids honored, and its end. */
export interface TaskWatch {
  readonly taskIds: readonly string[];
  close(): void;
}

/** At most this many tasks are watched by one subscription; the ids past them are not honored. */
export const MAX_TASKS_PER_WATCH = 64;

const DEFAULT_MAX_TASKS = 256;
const DEFAULT_TTL_MS = 60 * 60_000;
const DEFAULT_POLL_INTERVAL_MS = 500;
/** Expired tasks are looked for at least this often (and at every use of the store). */
const SWEEP_MS = 60_000;
const DEFAULT_MAX_WATCHES = 256;
/** A watched task of a server behind is asked of it at most this often, whatever poll interval it suggests. */
const MIN_RELAY_POLL_MS = 250;

/** A task the store holds: one it runs (its call's controller), or one of a server behind it (how to reach it). */
interface HeldTask {
  /** As `tasks/get` shows it: the truth for one run here, the server's last answer for a relayed one. */
  task: DetailedTask;
  expires: number;
  controller?: AbortController;
  upstream?: RemoteTask;
  /** Where each change of its status goes, one listener per subscription that watches it. */
  watchers?: Set<(task: DetailedTask) => void>;
  /** A watched relayed task's subscription to its server's notifications of it. */
  upstreamWatch?: TaskStatusWatch;
  /** The next poll of a watched relayed task's server, where it sends no notifications of it. */
  poll?: NodeJS.Timeout;
}

/**
 * Tasks held for an endpoint's clients, bounded in number and held until their ttl from creation: tool calls it runs
 * in the background, and tasks of the servers behind it that it relays. Ids are random UUIDs, not counters, since
 * whoever knows one may read and cancel the task (a relayed task's own id, often a counter, never leaves the store).
 * Long-lived: one per served endpoint, shared by the server instances it makes (the gateway makes one per request).
 */
export class TaskStore {
  private readonly held = new Map<string, HeldTask>();
  private readonly maxTasks: number;
  private readonly ttlMs: number;
  private readonly pollIntervalMs: number;
  private readonly maxWatches: number;
  private readonly sweeper: NodeJS.Timeout;
  private watches = 0;

  constructor(options: TaskStoreOptions = {}) {
    this.maxTasks = options.maxTasks ?? DEFAULT_MAX_TASKS;
    this.maxWatches = options.maxWatches ?? DEFAULT_MAX_WATCHES;
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    // Tasks nobody asks about again are forgotten (and cancelled) all the same; the timer keeps no process alive.
    this.sweeper = setInterval(() => this.expire(), Math.min(this.ttlMs, SWEEP_MS)).unref();
  }

  /**
   * Starts `run` as a new task and returns the flat CreateTaskResult to answer the `tools/call` with. `run`'s
   * rejection fails the task with the error's code (a number) and message; the task's cancellation aborts its signal.
   */
  start(run: (signal: AbortSignal) => Promise<CallToolResult>): CreatedTask {
    this.makeRoom(() => undefined);
    const now = new Date().toISOString();
    const task: DetailedTask = { taskId: randomUUID(), status: "working", createdAt: now, lastUpdatedAt: now, ttlMs: this.ttlMs, pollIntervalMs: this.pollIntervalMs };
    const controller = new AbortController();
    const entry: HeldTask = { task, controller, expires: Date.now() + this.ttlMs };
    this.held.set(task.taskId, entry);
    run(controller.signal).then(
      (result) => this.settle(entry, { status: "completed", result }),
      (error: unknown) => this.settle(entry, { status: "failed", error: errorOf(error) }),
    );
    return { resultType: "task", ...task };
  }

  /**
   * Holds a task a server behind this endpoint answered a relayed `tools/call` with, under an id of the store's, and
   * returns the CreateTaskResult for the client: the server's status and times, held for the shorter of its ttl and
   * the store's. A task past the store's bound is cancelled on its server at once, and the call refused.
   */
  relay(created: DetailedTask, upstream: RemoteTask): CreatedTask {
    this.makeRoom(() => void upstream.cancel().catch(() => undefined));
    const ttlMs = Math.min(created.ttlMs ?? this.ttlMs, this.ttlMs);
    // A CreateTaskResult carries no result, error or questions: those are for tasks/get.
    const { result: _result, error: _error, inputRequests: _questions, ...task } = relayedView(created, randomUUID(), ttlMs);
    this.held.set(task.taskId, { task, upstream, expires: Date.now() + ttlMs });
    return { resultType: "task", ...task };
  }

  /**
   * The task as `tasks/get` shows it: its result, error or questions inline. A relayed task still running is asked
   * of its server; one asking more than MAX_INPUT_REQUESTS questions at once is cancelled there and failed here.
   */
  async get(taskId: string): Promise<DetailedTask> {
    const entry = this.known(taskId);
    if (entry.upstream && !ENDED_TASK_STATUSES.has(entry.task.status)) this.refresh(entry, taskId, await entry.upstream.get());
    return { ...entry.task };
  }

  /** Passes answers to a relayed task's questions on to its server; a task run here asks none, and is only acknowledged. */
  async update(taskId: string, inputResponses: Record<string, unknown>): Promise<void> {
    const entry = this.known(taskId);
    if (entry.upstream && !ENDED_TASK_STATUSES.has(entry.task.status)) await entry.upstream.update(inputResponses);
  }

  /** Cancels a running task (its call is aborted, or its server told); one that has ended stays as it ended. */
  async cancel(taskId: string): Promise<void> {
    const entry = this.known(taskId);
    if (ENDED_TASK_STATUSES.has(entry.task.status)) return;
    // A relayed task's new status is its server's, seen at the next tasks/get.
    if (entry.upstream) return entry.upstream.cancel();
    this.settle(entry, { status: "cancelled", statusMessage: "cancelled by the client" });
    entry.controller?.abort(new Error("the task was cancelled"));
  }

  /**
   * Sends each change of status of the tasks named (SEP-2663 task status notifications) to `onStatus`, as tasks/get
   * shows the task, until closed. Only tasks the store holds are honored, at most MAX_TASKS_PER_WATCH of them; a task
   * of a server behind is followed by its server's own notifications while watched, or where the server sends none
   * of it, asked of it at its poll interval. Refused when `maxWatches` are open.
   */
  watch(taskIds: readonly unknown[], onStatus: (task: DetailedTask) => void): TaskWatch {
    this.expire();
    if (this.watches >= this.maxWatches) {
      throw new ProtocolError(ProtocolErrorCode.InternalError, `task status notifications refused: ${this.maxWatches} subscriptions naming tasks are open on this server; close one, or poll with tasks/get`);
    }
    const honored = [...new Set(taskIds.filter((id): id is string => typeof id === "string" && this.held.has(id)))].slice(0, MAX_TASKS_PER_WATCH);
    // Its own function, so two subscriptions with the same sink stay two.
    const listener = (task: DetailedTask): void => onStatus(task);
    for (const taskId of honored) {
      const entry = this.held.get(taskId) as HeldTask;
      (entry.watchers ??= new Set()).add(listener);
      this.follow(taskId, entry);
    }
    this.watches++;
    let open = true;
    return {
      taskIds: honored,
      close: () => {
        if (!open) return;
        open = false;
        this.watches--;
        for (const taskId of honored) {
          const entry = this.held.get(taskId);
          entry?.watchers?.delete(listener);
          if (entry?.watchers?.size === 0) unfollow(entry);
        }
      },
    };
  }

  /** Cancels every running task and forgets them all (the endpoint is closing). */
  close(): void {
    clearInterval(this.sweeper);
    for (const entry of this.held.values()) stop(entry, "the server is closing");
    this.held.clear();
  }

  /** A task's new state, told to those watching it. */
  private settle(entry: HeldTask, change: Partial<DetailedTask>): void {
    if (ENDED_TASK_STATUSES.has(entry.task.status)) return;
    entry.task = { ...entry.task, ...change, lastUpdatedAt: new Date().toISOString() };
    tell(entry);
  }

  /**
   * A relayed task's new state from its server (asked, or told): held under the store's id and told to those watching.
   * One asking more than MAX_INPUT_REQUESTS questions at once is cancelled there and failed here.
   */
  private refresh(entry: HeldTask, taskId: string, now: DetailedTask): void {
    if (ENDED_TASK_STATUSES.has(entry.task.status) || this.held.get(taskId) !== entry) return;
    const asked = Object.keys(now.inputRequests ?? {}).length;
    if (asked > MAX_INPUT_REQUESTS) {
      void entry.upstream?.cancel().catch(() => undefined);
      const message = `the server behind asked ${asked} questions at once; at most ${MAX_INPUT_REQUESTS} are passed on, so the task was cancelled there`;
      this.settle(entry, { status: "failed", statusMessage: message, error: { code: ProtocolErrorCode.InternalError, message } });
    } else {
      const before = entry.task;
      entry.task = relayedView(now, taskId, entry.task.ttlMs);
      if (before.status !== now.status || before.lastUpdatedAt !== now.lastUpdatedAt) tell(entry);
    }
    if (ENDED_TASK_STATUSES.has(entry.task.status)) unfollow(entry);
  }

  /** Follows a watched task of a server behind: its server's notifications of it, or polls where it sends none. */
  private follow(taskId: string, entry: HeldTask): void {
    if (!entry.upstream || entry.upstreamWatch || ENDED_TASK_STATUSES.has(entry.task.status)) return;
    const watch = entry.upstream.watch((now) => this.refresh(entry, taskId, now));
    entry.upstreamWatch = watch;
    void watch.honored.then((agreed) => {
      if (!agreed && entry.upstreamWatch === watch && entry.watchers?.size) this.pollWatched(taskId, entry);
    });
  }

  /** Asks a watched task of a server behind for its state after its poll interval, again until it ends or nobody watches. */
  private pollWatched(taskId: string, entry: HeldTask): void {
    if (!entry.upstream || entry.poll !== undefined || ENDED_TASK_STATUSES.has(entry.task.status)) return;
    const wait = Math.max(entry.task.pollIntervalMs ?? this.pollIntervalMs, MIN_RELAY_POLL_MS);
    entry.poll = setTimeout(() => {
      void this.get(taskId).then(
        () => {
          entry.poll = undefined;
          if (entry.watchers?.size && this.held.get(taskId) === entry) this.pollWatched(taskId, entry);
        },
        // The server behind is gone or refuses: its task is no longer polled; tasks/get says why.
        () => undefined,
      );
    }, wait).unref();
  }

  /** Room for one more task, expired ones forgotten first; without it, `refused` runs and the call is refused. */
  private makeRoom(refused: () => void): void {
    this.expire();
    if (this.held.size < this.maxTasks) return;
    refused();
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `the task store is full: at most ${this.maxTasks} tasks are held, each for ${this.ttlMs} ms from its start; call again later, or without the ${TASKS_EXTENSION_ID} extension`,
    );
  }

  private known(taskId: string): HeldTask {
    this.expire();
    const entry = this.held.get(taskId);
    if (!entry) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown task ${JSON.stringify(taskId.slice(0, 100))}: never started here, or held past its ttl (${this.ttlMs} ms)`);
    return entry;
  }

  private expire(): void {
    const now = Date.now();
    for (const [taskId, entry] of this.held) {
      if (entry.expires > now) continue;
      stop(entry, "the task's ttl ran out");
      this.held.delete(taskId);
    }
  }
}

/** Stops a task still running: its call aborted, or its server told to cancel it (not waited for); its watchers forgotten. */
function stop(entry: HeldTask, reason: string): void {
  unfollow(entry);
  entry.watchers?.clear();
  entry.controller?.abort(new Error(reason));
  if (entry.upstream && !ENDED_TASK_STATUSES.has(entry.task.status)) void entry.upstream.cancel().catch(() => undefined);
}

/** A server's task as this endpoint shows it: under the store's id and ttl, with the fields SEP-2663 defines and no others. */
function relayedView(task: DetailedTask, taskId: string, ttlMs: number | null): DetailedTask {
  const { status, statusMessage, createdAt, lastUpdatedAt, pollIntervalMs, result, error, inputRequests } = task;
  return {
    taskId,
    status,
    createdAt,
    lastUpdatedAt,
    ttlMs,
    ...(statusMessage !== undefined ? { statusMessage } : {}),
    ...(pollIntervalMs !== undefined ? { pollIntervalMs } : {}),
    ...(result !== undefined ? { result } : {}),
    ...(error !== undefined ? { error } : {}),
    ...(inputRequests !== undefined ? { inputRequests } : {}),
  };
}

/** Stops following a relayed task: its subscription on its server closed, its poll stopped. */
function unfollow(entry: HeldTask): void {
  void entry.upstreamWatch?.close().catch(() => undefined);
  entry.upstreamWatch = undefined;
  clearTimeout(entry.poll);
  entry.poll = undefined;
}

/** The task as it is now, to each subscription watching it. */
function tell(entry: HeldTask): void {
  for (const listener of entry.watchers ?? []) listener({ ...entry.task });
}

/** A failed call's error as a task shows it: its code (a number) and message. */
function errorOf(error: unknown): { code: number; message: string } {
  const code = (error as { code?: unknown } | undefined)?.code;
  return { code: typeof code === "number" ? code : ProtocolErrorCode.InternalError, message: error instanceof Error ? error.message : String(error) };
}

const TaskParams = z.looseObject({ taskId: z.string() });

/**
 * `tasks/get`, `tasks/update` and `tasks/cancel` on `server`, from `store`, each refused with -32021 when the
 * request does not declare the extension. `tasks/update`'s answers go to a relayed task's server.
 */
export function serveTaskRequests(server: Server, store: TaskStore): void {
  server.setRequestHandler("tasks/get", { params: TaskParams }, ({ taskId }, ctx) => {
    requireTasksExtension("tasks/get", ctx);
    return store.get(taskId);
  });
  server.setRequestHandler("tasks/update", { params: TaskParams }, async ({ taskId }, ctx) => {
    requireTasksExtension("tasks/update", ctx);
    // The SDK lifts inputResponses out of every request's params (SEP-2322), tasks/update's too.
    await store.update(taskId, ctx.mcpReq.inputResponses ?? {});
    return {};
  });
  server.setRequestHandler("tasks/cancel", { params: TaskParams }, async ({ taskId }, ctx) => {
    requireTasksExtension("tasks/cancel", ctx);
    await store.cancel(taskId);
    return {};
  });
}

/**
 * Takes off the `content` the SDK's tools/call handler adds to a task it answers with (an empty array, as to a
 * tool result without content), so the client gets the flat CreateTaskResult SEP-2663 defines. Call before the
 * server connects: it wraps the transport of each connection.
 */
export function answerTasksFlat(server: Server): void {
  const connect = server.connect.bind(server);
  server.connect = (transport: Transport) => {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(flatTask(message), options);
    return connect(transport);
  };
}

function flatTask(message: JSONRPCMessage): JSONRPCMessage {
  if (!("result" in message) || message.result.resultType !== "task") return message;
  const { content, ...task } = message.result;
  return Array.isArray(content) && content.length === 0 ? { ...message, result: task } : message;
}

/** Subscriptions naming tasks that one client (a connection) may have open at once. */
export const MAX_TASK_LISTENS_PER_CLIENT = 16;
/** Task status notifications a client has not taken yet (its transport still writing them) that end its subscriptions. */
export const MAX_UNWRITTEN_TASK_NOTICES = 64;

/** A `subscriptions/listen` that declares the extension and names tasks. */
const TaskListenSchema = z.looseObject({
  id: z.union([z.string(), z.number()]),
  method: z.literal("subscriptions/listen"),
  params: z.looseObject({
    notifications: z.looseObject({ taskIds: z.array(z.unknown()) }),
    _meta: z.looseObject({ [CLIENT_CAPABILITIES_META_KEY]: z.unknown() }),
  }),
});

/**
 * Task status notifications (SEP-2663) on one connection's `subscriptions/listen`, which the SDK's entry serves
 * knowing only its four change events and no hook for more. A listen that declares the extension and names `taskIds`
 * goes on to the entry without them (the entry checks its envelope and version, and serves the rest of the filter),
 * and the entry's acknowledgement goes out with the ids the store honors added; from then on each change of those
 * tasks goes out on the subscription as `notifications/tasks` (the task as tasks/get shows it), until the client
 * cancels the listen, the entry answers it, or the connection closes. Bounded: MAX_TASK_LISTENS_PER_CLIENT
 * subscriptions naming tasks, the store's bound on tasks per subscription, and a client that takes none of
 * MAX_UNWRITTEN_TASK_NOTICES notifications has its task subscriptions ended with an error naming that bound.
 * Install on the transport once the entry has set its handlers.
 */
export function serveTaskListens(wire: Transport, store: TaskStore): void {
  /** Listens passed on to the entry, awaiting its acknowledgement: the task ids they named. */
  const asked = new Map<RequestId, unknown[]>();
  const open = new Map<RequestId, TaskWatch>();
  let unwritten = 0;
  const receive = wire.onmessage;
  const closed = wire.onclose;
  const send = wire.send.bind(wire);
  const refuse = (id: RequestId, message: string): void => void send({ jsonrpc: "2.0", id, error: { code: ProtocolErrorCode.InternalError, message } }).catch(() => undefined);
  const end = (id: RequestId): void => {
    asked.delete(id);
    open.get(id)?.close();
    open.delete(id);
  };
  const notify = (subscription: RequestId, task: DetailedTask): void => {
    if (unwritten >= MAX_UNWRITTEN_TASK_NOTICES) {
      for (const id of [...open.keys()]) {
        end(id);
        refuse(id, UNREAD_LINE);
      }
      return;
    }
    unwritten++;
    void send(taskNotice(subscription, task))
      .catch(() => undefined)
      .finally(() => unwritten--);
  };
  wire.onmessage = (message, extra) => {
    const listen = taskListenOf(message);
    if (listen) {
      if (asked.size + open.size >= MAX_TASK_LISTENS_PER_CLIENT) {
        return refuse(listen.id, `subscriptions/listen refused: ${MAX_TASK_LISTENS_PER_CLIENT} subscriptions naming tasks are open on this connection; close one first`);
      }
      asked.set(listen.id, listen.taskIds);
      return receive?.(listen.passedOn, extra);
    }
    if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (id !== undefined) end(id);
    }
    receive?.(message, extra);
  };
  wire.send = (message, options) => {
    if ("method" in message && message.method === "notifications/subscriptions/acknowledged") {
      const id = message.params?._meta?.[SUBSCRIPTION_ID_META_KEY] as RequestId | undefined;
      const taskIds = id === undefined ? undefined : asked.get(id);
      if (id !== undefined && taskIds !== undefined) {
        asked.delete(id);
        const watch = watchOrNone(store, taskIds, (task) => notify(id, task));
        if (watch) open.set(id, watch);
        return send(acknowledgedWith(message, watch), options);
      }
    } else if ("id" in message && !("method" in message) && message.id !== undefined) {
      // The entry refused the listen, or ended it: so ends its task part.
      end(message.id);
    }
    return send(message, options);
  };
  wire.onclose = () => {
    for (const id of [...asked.keys(), ...open.keys()]) end(id);
    closed?.();
  };
}

/** The store's watch of `taskIds`, or none when it has as many open as it allows (the acknowledgement then honors no task). */
function watchOrNone(store: TaskStore, taskIds: readonly unknown[], onStatus: (task: DetailedTask) => void): TaskWatch | undefined {
  try {
    return store.watch(taskIds, onStatus);
  } catch {
    return undefined;
  }
}

const UNREAD_LINE = `task status notifications ended: ${MAX_UNWRITTEN_TASK_NOTICES} were still unread by this client; poll with tasks/get`;

/** A listen declaring the extension and naming tasks: its id, the ids named, and the request without them for the SDK's entry. */
function taskListenOf(message: unknown): { id: RequestId; taskIds: unknown[]; passedOn: JSONRPCMessage } | undefined {
  const listen = TaskListenSchema.safeParse(message);
  if (!listen.success || !declaresExtension(listen.data.params._meta[CLIENT_CAPABILITIES_META_KEY])) return undefined;
  const { id, params } = listen.data;
  const { taskIds, ...notifications } = params.notifications;
  return { id, taskIds, passedOn: { ...(message as JSONRPCMessage), params: { ...params, notifications } } as JSONRPCMessage };
}

/** The entry's acknowledgement with the task ids honored added (none, without a watch). */
function acknowledgedWith<T extends { params?: Record<string, unknown> }>(ack: T, watch: TaskWatch | undefined): T {
  const notifications = { ...(ack.params?.notifications as Record<string, unknown> | undefined), taskIds: watch?.taskIds ?? [] };
  return { ...ack, params: { ...ack.params, notifications } };
}

function taskNotice(subscription: RequestId, task: DetailedTask): JSONRPCNotification {
  return { jsonrpc: "2.0", method: TASK_NOTIFICATION, params: { ...task, _meta: { [SUBSCRIPTION_ID_META_KEY]: subscription } } };
}

/** How often a task subscription's HTTP stream carries a comment when nothing else is sent, as the SDK's own streams do. */
const KEEPALIVE_MS = 15_000;

/**
 * Task status notifications (SEP-2663) on the `subscriptions/listen` streams of an HTTP handler of the SDK's (the
 * request's body already parsed by the caller): what serveTaskListens does on stdio. A listen that declares the
 * extension and names tasks goes to the handler without them; when it answers with its stream, that stream is
 * passed on with its acknowledgement carrying the ids the store honors, and each change of those tasks added as an
 * event. The handler's own end of a stream that only named tasks (it honors nothing of the filter) is held back
 * until the client goes. A client that leaves MAX_UNWRITTEN_TASK_NOTICES events unread has the stream ended with an
 * error naming that bound.
 */
export function withTaskListens(handler: McpHttpHandler, store: TaskStore): McpHttpHandler {
  const fetch: McpHttpHandler["fetch"] = async (request, options) => {
    const listen = taskListenOf(options?.parsedBody);
    if (!listen) return handler.fetch(request, options);
    const response = await handler.fetch(request, { ...options, parsedBody: listen.passedOn });
    if (response.status !== 200 || !response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
    return new Response(taskEvents(response.body, listen, store, request.signal), { status: 200, headers: response.headers });
  };
  return { ...handler, fetch };
}

/** The handler's listen stream, its acknowledgement completed and the tasks' changes added (see withTaskListens). */
function taskEvents(inner: ReadableStream<Uint8Array>, listen: { id: RequestId; taskIds: unknown[] }, store: TaskStore, signal: AbortSignal): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const reader = inner.getReader();
  let watch: TaskWatch | undefined;
  let keepalive: NodeJS.Timeout | undefined;
  let done = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const event = (message: JSONRPCMessage): void => controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
        const finish = (last?: JSONRPCMessage): void => {
          if (done) return;
          done = true;
          watch?.close();
          clearInterval(keepalive);
          signal.removeEventListener("abort", abort);
          void reader.cancel().catch(() => undefined);
          if (last) event(last);
          controller.close();
        };
        const abort = (): void => finish();
        signal.addEventListener("abort", abort, { once: true });
        keepalive = setInterval(() => controller.enqueue(encoder.encode(": keepalive\n\n")), KEEPALIVE_MS).unref();
        const notify = (task: DetailedTask): void => {
          if (done) return;
          if ((controller.desiredSize ?? 1) <= 0) return finish({ jsonrpc: "2.0", id: listen.id, error: { code: ProtocolErrorCode.InternalError, message: UNREAD_LINE } });
          event(taskNotice(listen.id, task));
        };
        // The handler's events, frame by frame: its acknowledgement completed, and its end held back while it honored
        // nothing of the filter but tasks are watched.
        let handlerHonors = false;
        void (async () => {
          let buffered = "";
          for (;;) {
            const { value, done: ended } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
            if (ended) return handlerHonors || !watch?.taskIds.length ? finish() : undefined;
            buffered += decoder.decode(value, { stream: true });
            for (let cut = buffered.indexOf("\n\n"); cut >= 0 && !done; cut = buffered.indexOf("\n\n")) {
              const frame = buffered.slice(0, cut);
              buffered = buffered.slice(cut + 2);
              const data = /^data: (.*)$/m.exec(frame)?.[1];
              const message = data === undefined ? undefined : (JSON.parse(data) as JSONRPCMessage);
              if (message && "method" in message && message.method === "notifications/subscriptions/acknowledged") {
                handlerHonors = Object.keys((message.params?.notifications as object | undefined) ?? {}).length > 0;
                watch = watchOrNone(store, listen.taskIds, notify);
                event(acknowledgedWith(message, watch));
              } else if (message && "id" in message && !("method" in message)) {
                if (handlerHonors || !watch?.taskIds.length) finish(message);
              } else controller.enqueue(encoder.encode(`${frame}\n\n`));
            }
          }
        })();
      },
      cancel() {
        done = true;
        watch?.close();
        clearInterval(keepalive);
        void reader.cancel().catch(() => undefined);
      },
    },
    { highWaterMark: MAX_UNWRITTEN_TASK_NOTICES },
  );
}
