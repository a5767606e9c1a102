import { randomUUID } from "node:crypto";
import { z } from "zod";
import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { CallToolResult, ClientCapabilities, JSONRPCMessage, Server, ServerContext, Transport } from "@modelcontextprotocol/server";
import { MAX_INPUT_REQUESTS, MISSING_REQUIRED_CLIENT_CAPABILITY, TASKS_EXTENSION_ID } from "./ext-tasks.js";
import type { CreatedTask, DetailedTask, RemoteTask } from "./ext-tasks.js";

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
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  return capabilities?.extensions?.[TASKS_EXTENSION_ID] !== undefined;
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
}

const DEFAULT_MAX_TASKS = 256;
const DEFAULT_TTL_MS = 60 * 60_000;
const DEFAULT_POLL_INTERVAL_MS = 500;
/** Expired tasks are looked for at least this often (and at every use of the store). */
const SWEEP_MS = 60_000;
const ENDED = new Set(["completed", "failed", "cancelled"]);

/** A task the store holds: one it runs (its call's controller), or one of a server behind it (how to reach it). */
interface HeldTask {
  /** As `tasks/get` shows it: the truth for one run here, the server's last answer for a relayed one. */
  task: DetailedTask;
  expires: number;
  controller?: AbortController;
  upstream?: RemoteTask;
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
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: TaskStoreOptions = {}) {
    this.maxTasks = options.maxTasks ?? DEFAULT_MAX_TASKS;
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
      (result) => settle(entry, { status: "completed", result }),
      (error: unknown) => settle(entry, { status: "failed", error: errorOf(error) }),
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
    if (entry.upstream && !ENDED.has(entry.task.status)) {
      const now = await entry.upstream.get();
      const asked = Object.keys(now.inputRequests ?? {}).length;
      if (asked > MAX_INPUT_REQUESTS) {
        void entry.upstream.cancel().catch(() => undefined);
        const message = `the server behind asked ${asked} questions at once; at most ${MAX_INPUT_REQUESTS} are passed on, so the task was cancelled there`;
        settle(entry, { status: "failed", statusMessage: message, error: { code: ProtocolErrorCode.InternalError, message } });
      } else {
        entry.task = relayedView(now, taskId, entry.task.ttlMs);
      }
    }
    return { ...entry.task };
  }

  /** Passes answers to a relayed task's questions on to its server; a task run here asks none, and is only acknowledged. */
  async update(taskId: string, inputResponses: Record<string, unknown>): Promise<void> {
    const entry = this.known(taskId);
    if (entry.upstream && !ENDED.has(entry.task.status)) await entry.upstream.update(inputResponses);
  }

  /** Cancels a running task (its call is aborted, or its server told); one that has ended stays as it ended. */
  async cancel(taskId: string): Promise<void> {
    const entry = this.known(taskId);
    if (ENDED.has(entry.task.status)) return;
    // A relayed task's new status is its server's, seen at the next tasks/get.
    if (entry.upstream) return entry.upstream.cancel();
    settle(entry, { status: "cancelled", statusMessage: "cancelled by the client" });
    entry.controller?.abort(new Error("the task was cancelled"));
  }

  /** Cancels every running task and forgets them all (the endpoint is closing). */
  close(): void {
    clearInterval(this.sweeper);
    for (const entry of this.held.values()) stop(entry, "the server is closing");
    this.held.clear();
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

/** Stops a task still running: its call aborted, or its server told to cancel it (not waited for). */
function stop(entry: HeldTask, reason: string): void {
  entry.controller?.abort(new Error(reason));
  if (entry.upstream && !ENDED.has(entry.task.status)) void entry.upstream.cancel().catch(() => undefined);
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

function settle(entry: HeldTask, change: Partial<DetailedTask>): void {
  if (ENDED.has(entry.task.status)) return;
  entry.task = { ...entry.task, ...change, lastUpdatedAt: new Date().toISOString() };
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
