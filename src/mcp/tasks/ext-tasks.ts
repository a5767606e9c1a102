import { z } from "zod";
import { JSONRPCResponseSchema } from "@modelcontextprotocol/core";
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SUBSCRIPTION_ID_META_KEY,
} from "@modelcontextprotocol/client";
import type { CallToolRequestOptions, CallToolResult, Client, ClientCapabilities, Implementation, JSONRPCMessage, Transport } from "@modelcontextprotocol/client";

/**
 * The client side of the MCP Tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`, protocol revision
 * 2026-07-28), on SDK v2's public surface only. A server that declares the extension may answer a `tools/call`
 * whose request carries the extension in its per-request capabilities with a flat `CreateTaskResult`
 * (`resultType: "task"`); `tasks/get` then returns the task with its result, error or `inputRequests` inline,
 * `tasks/update` delivers `inputResponses`, `tasks/cancel` is acknowledged with an empty result.
 *
 * SDK v2's Client refuses both halves on 2026-07-28: its result decoder rejects `resultType: "task"`, and it will
 * not send `tasks/get` or `tasks/cancel` (2025 methods it removed from that era). So these requests go through
 * {@link RawRequests}, a request coordinator of the host's on the same transport, with ids of its own and the
 * per-request `_meta` envelope the Client would add. Nothing here depends on the host beyond SDK types.
 */
export const TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks";

export const ExtTaskStatusSchema = z.enum(["working", "input_required", "completed", "failed", "cancelled"]);

/** A task in one of these states has ended and never changes again (both protocol eras name them alike). */
export const ENDED_TASK_STATUSES: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);

/** A task as `tasks/get` returns it (SEP-2663's DetailedTask): result, error or inputRequests inline by status. */
export const DetailedTaskSchema = z.looseObject({
  taskId: z.string(),
  status: ExtTaskStatusSchema,
  statusMessage: z.string().optional(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  ttlMs: z.number().int().nullable(),
  pollIntervalMs: z.number().nonnegative().optional(),
  result: z.looseObject({}).optional(),
  error: z.looseObject({ code: z.number(), message: z.string() }).optional(),
  inputRequests: z.record(z.string(), z.looseObject({ method: z.string(), params: z.looseObject({}).optional() })).optional(),
});
export type DetailedTask = z.infer<typeof DetailedTaskSchema>;
export type ExtInputRequest = NonNullable<DetailedTask["inputRequests"]>[string];
/** A `tools/call` answered with a task (SEP-2663's flat CreateTaskResult). */
export type CreatedTask = DetailedTask & { resultType: "task" };

/** At most this many questions outstanding at once in a task, answered or passed on: each may be put to a person. */
export const MAX_INPUT_REQUESTS = 32;

/** A task of a server's, reached through the extension's requests (the hub relays its clients' to it). */
export interface RemoteTask {
  get(): Promise<DetailedTask>;
  /**
   * Asks the server for the task's status notifications, each given to `onStatus` until closed; `honored` settles
   * true once the server agrees to send them, false when it refuses or does not answer (the task is then only polled).
   */
  watch(onStatus: (task: DetailedTask) => void): TaskStatusWatch;
  /** Delivers answers to some or all of the task's `inputRequests`, by their keys. */
  update(inputResponses: Record<string, unknown>): Promise<void>;
  cancel(): Promise<void>;
}

/** A subscription to one task's status notifications on its server. */
export interface TaskStatusWatch {
  honored: Promise<boolean>;
  close: () => Promise<void>;
}

/** What a `tools/call` made with the extension answers, once the Client has asked any questions first (SEP-2322). */
export type ExtToolCallOutcome = { kind: "task"; task: DetailedTask } | { kind: "complete"; result: CallToolResult };

/** The per-request envelope of 2026-07-28, as the host's Client was set up. */
export interface RequestFraming {
  protocolVersion: string;
  clientInfo: Implementation;
  clientCapabilities: ClientCapabilities;
}

export interface RawRequestOptions {
  timeout: number;
  signal?: AbortSignal;
}

/** SEP-2663's task status notification, sent on a subscriptions/listen stream that asked for the task's id. */
export const TASK_NOTIFICATION = "notifications/tasks";
/** How a task the server answered to the Client's tools/call is handed back to the caller: in an error the Client rejects with. */
const CREATED_TASK_KEY = "dev.toolbridge/createdTask";
/** The Client's tools/calls declaring the extension still unanswered that are remembered; the oldest go first. */
const MAX_TRACKED_CALLS = 1024;

/**
 * The seam between a connected Client and the extension, on its transport. Requests of the host's own go beside
 * the Client's: their ids are strings of its own (`ext-tasks-N`), so they never meet the Client's numeric ones, and
 * their responses are taken off the transport before the Client sees them. The Client's own tools/call declaring
 * the extension goes out as the Client makes it (custom argument headers, SEP-2322 rounds), and a task it is answered
 * with comes back to the Client as an error carrying the task, since it refuses `resultType: "task"` (a task's result
 * is held to the tool's outputSchema by tool-call.ts's check, as SEP-1686's are). Install once the Client is connected.
 */
export class RawRequests {
  private next = 0;
  private readonly pending = new Map<string, (message: JSONRPCMessage) => void>();
  /** Ids of the Client's tools/calls declaring the extension, until answered. */
  private readonly taskCalls = new Set<string | number>();
  /** Open subscriptions/listen requests of the host's awaiting their acknowledgement. */
  private readonly acks = new Map<string, (params: Record<string, unknown>) => void>();
  /** Where the server's `notifications/tasks` go (their params, unchecked). */
  onTaskNotification: ((params: unknown) => void) | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly framing: RequestFraming,
  ) {
    const inner = transport.onmessage;
    const send = transport.send.bind(transport);
    transport.onmessage = (message, extra) => {
      if ("method" in message && !("id" in message)) {
        if (message.method === TASK_NOTIFICATION) return this.onTaskNotification?.(message.params);
        const subscription = message.method === "notifications/subscriptions/acknowledged" ? message.params?._meta?.[SUBSCRIPTION_ID_META_KEY] : undefined;
        const ack = typeof subscription === "string" ? this.acks.get(subscription) : undefined;
        if (ack) return ack(message.params ?? {});
      }
      const id = "id" in message && !("method" in message) ? message.id : undefined;
      const waiter = typeof id === "string" ? this.pending.get(id) : undefined;
      if (waiter) return waiter(message);
      // Unchecked yet (the transport hands on any JSON-RPC object): a result that is no object goes to the Client, which refuses it.
      if (id !== undefined && this.taskCalls.delete(id) && "result" in message && (message.result as unknown as Record<string, unknown> | null)?.resultType === "task") {
        const { resultType: _task, ...task } = message.result;
        const error = { code: ProtocolErrorCode.InternalError, message: "the server runs this call as a task", data: { [CREATED_TASK_KEY]: task } };
        return inner?.({ jsonrpc: "2.0", id, error }, extra);
      }
      inner?.(message, extra);
    };
    transport.send = (message, options) => {
      if (!("method" in message) || !("id" in message) || message.method !== "tools/call") return send(message, options);
      const meta = message.params?._meta as Record<string, unknown> | undefined;
      if (declaresExtension(meta?.[CLIENT_CAPABILITIES_META_KEY])) {
        this.taskCalls.add(message.id);
        if (this.taskCalls.size > MAX_TRACKED_CALLS) this.taskCalls.delete(this.taskCalls.values().next().value as string | number);
      }
      return send(message, options);
    };
  }

  /** The per-request capabilities that declare the extension. */
  get capabilities(): ClientCapabilities {
    return this.framing.clientCapabilities;
  }

  /** The raw result object; a JSON-RPC error is thrown as a ProtocolError. */
  request(method: string, params: Record<string, unknown>, { timeout, signal }: RawRequestOptions): Promise<Record<string, unknown>> {
    const id = `ext-tasks-${++this.next}`;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.pending.delete(id);
      };
      const timer = setTimeout(() => (done(), reject(new SdkError(SdkErrorCode.RequestTimeout, `${method} got no answer within ${timeout} ms`, { timeout }))), timeout);
      const onAbort = (): void => (done(), reject(signal?.reason));
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, (message) => {
        done();
        const outcome = responseOf(method, message);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      });
      this.transport.send({ jsonrpc: "2.0", id, method, params: this.framed(params) }).catch((error: unknown) => (done(), reject(error)));
    });
  }

  /**
   * Opens a `subscriptions/listen` of the host's own, declaring the extension: what the server agreed to send once
   * it acknowledges (a refusal, or no acknowledgement within `timeout`, rejects and ends it), and a close that ends
   * the subscription at any time. The stream stays open until closed.
   */
  listen(notifications: Record<string, unknown>, timeout: number): { acknowledged: Promise<Record<string, unknown>>; close: () => Promise<void> } {
    const id = `ext-tasks-${++this.next}`;
    const stream = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let open = true;
    const end = (): void => {
      open = false;
      clearTimeout(timer);
      this.acks.delete(id);
      this.pending.delete(id);
    };
    const close = async (): Promise<void> => {
      if (!open) return;
      end();
      stream.abort();
      await this.transport.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: this.framed({ requestId: id }) }).catch(() => undefined);
    };
    const acknowledged = new Promise<Record<string, unknown>>((resolve, reject) => {
      timer = setTimeout(() => (void close(), reject(new SdkError(SdkErrorCode.RequestTimeout, `subscriptions/listen got no acknowledgement within ${timeout} ms`, { timeout }))), timeout);
      this.acks.set(id, (params) => {
        clearTimeout(timer);
        this.acks.delete(id);
        const honored = params.notifications;
        resolve(typeof honored === "object" && honored !== null ? (honored as Record<string, unknown>) : {});
      });
      // Before the acknowledgement, a refusal; after it, the server ending the subscription.
      this.pending.set(id, (message) => {
        end();
        const outcome = responseOf("subscriptions/listen", message);
        reject(outcome instanceof Error ? outcome : new SdkError(SdkErrorCode.ConnectionClosed, "subscriptions/listen ended before it was acknowledged"));
      });
      this.transport.send({ jsonrpc: "2.0", id, method: "subscriptions/listen", params: this.framed({ notifications }) }, { requestSignal: stream.signal }).catch((error: unknown) => (end(), reject(error)));
    });
    return { acknowledged, close };
  }

  /** Params with the per-request envelope of 2026-07-28, the extension declared. */
  private framed(params: Record<string, unknown>): Record<string, unknown> {
    const meta = {
      [PROTOCOL_VERSION_META_KEY]: this.framing.protocolVersion,
      [CLIENT_INFO_META_KEY]: this.framing.clientInfo,
      [CLIENT_CAPABILITIES_META_KEY]: this.framing.clientCapabilities,
      ...(params._meta as Record<string, unknown> | undefined),
    };
    return { ...params, _meta: meta };
  }
}

/**
 * The result of a response to a request of the host's own, or the error to fail it with. Checked here: a transport
 * may hand on any JSON-RPC object, leaving the checks to the Client, which never sees these.
 */
function responseOf(method: string, message: JSONRPCMessage): Record<string, unknown> | Error {
  const response = JSONRPCResponseSchema.safeParse(message);
  if (!response.success) return new SdkError(SdkErrorCode.InvalidResult, `${method}: not a JSON-RPC response: ${z.prettifyError(response.error)}`);
  if ("error" in response.data) return new ProtocolError(response.data.error.code, response.data.error.message, response.data.error.data);
  return response.data.result;
}

/** Whether per-request capabilities (unchecked) declare the extension. */
export function declaresExtension(capabilities: unknown): boolean {
  const extensions = (capabilities as ClientCapabilities | undefined)?.extensions;
  return typeof extensions === "object" && extensions !== null && TASKS_EXTENSION_ID in extensions;
}

/**
 * The task in the error a Client's tools/call declaring the extension was handed back with, when the server
 * answered it with one (checked: a task without an id, say, is an SdkError); undefined for any other error.
 */
export function createdTaskOf(error: unknown): DetailedTask | undefined {
  if (!(error instanceof ProtocolError) || typeof error.data !== "object" || error.data === null) return undefined;
  const task = (error.data as Record<string, unknown>)[CREATED_TASK_KEY];
  return task === undefined ? undefined : parse(DetailedTaskSchema, task, "tools/call");
}

/** Whether a connected Client's server speaks 2026-07-28 and declares the extension. */
export function serverDeclaresTasksExtension(client: Client): boolean {
  if (client.getProtocolEra() !== "modern") return false;
  const extension = client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION_ID];
  return typeof extension === "object" && extension !== null;
}

/** Whether an error is the server's -32021 (Missing Required Client Capability) naming this extension. */
export function requiresTasksExtension(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, data } = error as { code?: unknown; data?: { requiredCapabilities?: { extensions?: Record<string, unknown> } } };
  return code === MISSING_REQUIRED_CLIENT_CAPABILITY && data?.requiredCapabilities?.extensions?.[TASKS_EXTENSION_ID] !== undefined;
}

/** The JSON-RPC error of 2026-07-28 for a request that lacks a capability the server requires of it. */
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

/** The extension's requests on one server. */
export class TasksExtensionClient {
  private readonly statusListeners = new Set<(task: DetailedTask) => void>();

  constructor(private readonly raw: RawRequests) {}

  /**
   * `tools/call` through the Client, with the extension in this request's capabilities: the server alone decides
   * whether it runs as a task. The Client mirrors the tool's declared argument headers, answers any questions the
   * server asks first (SEP-2322), and checks a result given at once against the tool's outputSchema.
   */
  async callTool(client: Client, name: string, args: Record<string, unknown>, options: CallToolRequestOptions): Promise<ExtToolCallOutcome> {
    try {
      const result = await client.callTool({ name, arguments: args, _meta: { [CLIENT_CAPABILITIES_META_KEY]: this.raw.capabilities } }, options);
      return { kind: "complete", result };
    } catch (error) {
      const task = createdTaskOf(error);
      if (task === undefined) throw error;
      return { kind: "task", task };
    }
  }

  /**
   * Asks for `notifications/tasks` about one task (SEP-2663 task status notifications): whether the server agreed,
   * and the close of that subscription. A server that refuses, does not answer, or does not agree to that task is
   * left at once: the task is then only polled.
   */
  watch(taskId: string, timeout: number): TaskStatusWatch {
    const { acknowledged, close } = this.raw.listen({ taskIds: [taskId] }, timeout);
    const honored = acknowledged.then(
      async (agreed) => {
        if (Array.isArray(agreed.taskIds) && agreed.taskIds.includes(taskId)) return true;
        await close();
        return false;
      },
      () => false,
    );
    return { honored, close };
  }

  /** Adds a listener of the server's task status notifications (one that is not a task is dropped); its removal. */
  onStatus(listener: (task: DetailedTask) => void): () => void {
    this.statusListeners.add(listener);
    this.raw.onTaskNotification ??= (params) => {
      const parsed = DetailedTaskSchema.safeParse(params);
      if (parsed.success) for (const each of this.statusListeners) each(parsed.data);
    };
    return () => void this.statusListeners.delete(listener);
  }

  async get(taskId: string, options: RawRequestOptions): Promise<DetailedTask> {
    const { resultType: _complete, ...task } = await this.raw.request("tasks/get", { taskId }, options);
    return parse(DetailedTaskSchema, task, "tasks/get");
  }

  /** Answers some or all of a task's `inputRequests`, by their keys; the new state shows at the next `tasks/get`. */
  async update(taskId: string, inputResponses: Record<string, unknown>, options: RawRequestOptions): Promise<void> {
    await this.raw.request("tasks/update", { taskId, inputResponses }, options);
  }

  async cancel(taskId: string, options: RawRequestOptions): Promise<void> {
    await this.raw.request("tasks/cancel", { taskId }, options);
  }
}

function parse<T extends z.ZodType>(schema: T, value: unknown, method: string): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new SdkError(SdkErrorCode.InvalidResult, `Invalid result for ${method}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
