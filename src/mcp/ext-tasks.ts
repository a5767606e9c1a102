import { z } from "zod";
import { CallToolResultSchema, JSONRPCResponseSchema } from "@modelcontextprotocol/core";
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  SdkError,
  SdkErrorCode,
} from "@modelcontextprotocol/client";
import type { CallToolResult, Client, ClientCapabilities, Implementation, JSONRPCMessage, Transport } from "@modelcontextprotocol/client";

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

/** What a `tools/call` made with the extension answers: a task, the tool's result, or questions first (SEP-2322). */
export type ExtToolCallOutcome =
  | { kind: "task"; task: DetailedTask }
  | { kind: "complete"; result: CallToolResult }
  | { kind: "input_required"; inputRequests: Record<string, ExtInputRequest>; requestState?: string };

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

/**
 * Requests of the host's own beside a connected Client on the same transport: its ids are strings of its own
 * (`ext-tasks-N`), so they never meet the Client's numeric ones; their responses are taken off the transport before
 * the Client sees them, everything else passes through. Install once the Client is connected.
 */
export class RawRequests {
  private next = 0;
  private readonly pending = new Map<string, (message: JSONRPCMessage) => void>();

  constructor(
    private readonly transport: Transport,
    private readonly framing: RequestFraming,
  ) {
    const inner = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const id = "id" in message && !("method" in message) ? message.id : undefined;
      const waiter = typeof id === "string" ? this.pending.get(id) : undefined;
      if (waiter) return waiter(message);
      inner?.(message, extra);
    };
  }

  /** The raw result object; a JSON-RPC error is thrown as a ProtocolError. */
  request(method: string, params: Record<string, unknown>, { timeout, signal }: RawRequestOptions): Promise<Record<string, unknown>> {
    const id = `ext-tasks-${++this.next}`;
    const meta = {
      [PROTOCOL_VERSION_META_KEY]: this.framing.protocolVersion,
      [CLIENT_INFO_META_KEY]: this.framing.clientInfo,
      [CLIENT_CAPABILITIES_META_KEY]: this.framing.clientCapabilities,
      ...(params._meta as Record<string, unknown> | undefined),
    };
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
        // Checked here: a transport may hand on any JSON-RPC object, leaving the checks to the Client, which never sees these.
        const response = JSONRPCResponseSchema.safeParse(message);
        if (!response.success) return reject(new SdkError(SdkErrorCode.InvalidResult, `${method}: not a JSON-RPC response: ${z.prettifyError(response.error)}`));
        if ("error" in response.data) return reject(new ProtocolError(response.data.error.code, response.data.error.message, response.data.error.data));
        resolve(response.data.result);
      });
      this.transport.send({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }).catch((error: unknown) => (done(), reject(error)));
    });
  }
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

const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

/** The extension's requests on one server. */
export class TasksExtensionClient {
  constructor(private readonly raw: RawRequests) {}

  /**
   * `tools/call` with the extension in this request's capabilities: the server alone decides whether it runs as a
   * task. `inputResponses` and `requestState` answer an earlier `input_required` round.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: RawRequestOptions,
    round: { inputResponses?: Record<string, unknown>; requestState?: string } = {},
  ): Promise<ExtToolCallOutcome> {
    const result = await this.raw.request("tools/call", { name, arguments: args, ...round }, options);
    const { resultType, ...rest } = result;
    if (resultType === "task") return { kind: "task", task: parse(DetailedTaskSchema, rest, "tools/call") };
    if (resultType === "input_required") {
      const { inputRequests, requestState } = parse(InputRequiredSchema, rest, "tools/call");
      return { kind: "input_required", inputRequests: inputRequests ?? {}, ...(requestState !== undefined ? { requestState } : {}) };
    }
    if (resultType !== "complete") throw new SdkError(SdkErrorCode.UnsupportedResultType, `tools/call: unsupported resultType ${JSON.stringify(resultType)}`);
    return { kind: "complete", result: parse(CallToolResultSchema, rest, "tools/call") };
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

const InputRequiredSchema = z.looseObject({
  inputRequests: z.record(z.string(), z.looseObject({ method: z.string(), params: z.looseObject({}).optional() })).optional(),
  requestState: z.string().optional(),
});

function parse<T extends z.ZodType>(schema: T, value: unknown, method: string): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new SdkError(SdkErrorCode.InvalidResult, `Invalid result for ${method}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
