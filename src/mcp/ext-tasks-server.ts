import { randomUUID } from "node:crypto";
import { z } from "zod";
import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { CallToolResult, ClientCapabilities, JSONRPCMessage, Server, ServerContext, Transport } from "@modelcontextprotocol/server";
import { MISSING_REQUIRED_CLIENT_CAPABILITY, TASKS_EXTENSION_ID, type DetailedTask } from "./ext-tasks.js";

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

/** A `tools/call` answered with a task (SEP-2663's flat CreateTaskResult). */
export type CreatedTask = DetailedTask & { resultType: "task" };

const DEFAULT_MAX_TASKS = 256;
const DEFAULT_TTL_MS = 60 * 60_000;
const DEFAULT_POLL_INTERVAL_MS = 500;
const ENDED = new Set(["completed", "failed", "cancelled"]);

interface HeldTask {
  task: DetailedTask;
  controller: AbortController;
  expires: number;
}

/**
 * Tool calls run in the background as tasks, bounded in number and held until their ttl from creation. Ids are
 * random UUIDs, not counters, since whoever knows one may read and cancel the task. Long-lived: one per served
 * endpoint, shared by the server instances it makes (the gateway makes one per request).
 */
export class TaskStore {
  private readonly held = new Map<string, HeldTask>();
  private readonly maxTasks: number;
  private readonly ttlMs: number;
  private readonly pollIntervalMs: number;

  constructor(options: TaskStoreOptions = {}) {
    this.maxTasks = options.maxTasks ?? DEFAULT_MAX_TASKS;
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  }

  /**
   * Starts `run` as a new task and returns the flat CreateTaskResult to answer the `tools/call` with. `run`'s
   * rejection fails the task with the error's code (a number) and message; the task's cancellation aborts its signal.
   */
  start(run: (signal: AbortSignal) => Promise<CallToolResult>): CreatedTask {
    this.expire();
    if (this.held.size >= this.maxTasks) {
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `the task store is full: at most ${this.maxTasks} tasks are held, each for ${this.ttlMs} ms from its start; call again later, or without the ${TASKS_EXTENSION_ID} extension`,
      );
    }
    const now = new Date().toISOString();
    const task: DetailedTask = { taskId: randomUUID(), status: "working", createdAt: now, lastUpdatedAt: now, ttlMs: this.ttlMs, pollIntervalMs: this.pollIntervalMs };
    const entry: HeldTask = { task, controller: new AbortController(), expires: Date.now() + this.ttlMs };
    this.held.set(task.taskId, entry);
    run(entry.controller.signal).then(
      (result) => settle(entry, { status: "completed", result }),
      (error: unknown) => {
        const code = (error as { code?: unknown } | undefined)?.code;
        settle(entry, { status: "failed", error: { code: typeof code === "number" ? code : ProtocolErrorCode.InternalError, message: error instanceof Error ? error.message : String(error) } });
      },
    );
    return { resultType: "task", ...task };
  }

  /** The task as `tasks/get` shows it: its result or error inline once it has ended. */
  get(taskId: string): DetailedTask {
    return { ...this.known(taskId).task };
  }

  /** Cancels a running task (its call is aborted); one that has ended stays as it ended. */
  cancel(taskId: string): void {
    const entry = this.known(taskId);
    settle(entry, { status: "cancelled", statusMessage: "cancelled by the client" });
    entry.controller.abort(new Error("the task was cancelled"));
  }

  /** Cancels every running task and forgets them all (the endpoint is closing). */
  close(): void {
    for (const entry of this.held.values()) entry.controller.abort(new Error("the server is closing"));
    this.held.clear();
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
      entry.controller.abort(new Error("the task's ttl ran out"));
      this.held.delete(taskId);
    }
  }
}

function settle(entry: HeldTask, change: Partial<DetailedTask>): void {
  if (ENDED.has(entry.task.status)) return;
  entry.task = { ...entry.task, ...change, lastUpdatedAt: new Date().toISOString() };
}

const TaskParams = z.looseObject({ taskId: z.string() });

/**
 * `tasks/get`, `tasks/update` and `tasks/cancel` on `server`, from `store`, each refused with -32021 when the
 * request does not declare the extension. `tasks/update` is acknowledged and changes nothing: these tasks never
 * ask their client anything (a question of the work behind one is not relayed).
 */
export function serveTaskRequests(server: Server, store: TaskStore): void {
  server.setRequestHandler("tasks/get", { params: TaskParams }, ({ taskId }, ctx) => {
    requireTasksExtension("tasks/get", ctx);
    return store.get(taskId);
  });
  server.setRequestHandler("tasks/update", { params: TaskParams }, ({ taskId }, ctx) => {
    requireTasksExtension("tasks/update", ctx);
    store.get(taskId);
    return {};
  });
  server.setRequestHandler("tasks/cancel", { params: TaskParams }, ({ taskId }, ctx) => {
    requireTasksExtension("tasks/cancel", ctx);
    store.cancel(taskId);
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
