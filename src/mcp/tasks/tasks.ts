import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ImplementationSchema,
  ListTasksResultSchema,
} from "@modelcontextprotocol/core";
import { ProtocolError, SdkErrorCode, SdkError, SERVER_INFO_META_KEY } from "@modelcontextprotocol/client";
import type { Client, RequestOptions, CallToolResult, Implementation, Task, Tool } from "@modelcontextprotocol/client";
import { ENDED_TASK_STATUSES, MAX_INPUT_REQUESTS, serverDeclaresTasksExtension } from "./ext-tasks.js";
import type { DetailedTask, ExtInputRequest, TasksExtensionClient, TaskStatusWatch } from "./ext-tasks.js";
import { checkedToolResult } from "../tool-call.js";
import type { CallToolOptions, HubEvent, HubTask, TaskMode } from "../types.js";

/**
 * How a tool call runs as a task, whatever the protocol revision. Two forms exist:
 * - 2025-11-25 (SEP-1686): `tools/call` with a `task` parameter answers a CreateTaskResult;
 *   `tasks/get` polls, `tasks/result` fetches the result (and carries the requests of an
 *   `input_required` task), `tasks/cancel` cancels. SDK v2 keeps only its wire schemas (it dropped
 *   v1's `client.experimental.tasks`), so the requests are sent here with those schemas.
 * - 2026-07-28 (SEP-2663, the `io.modelcontextprotocol/tasks` extension): the server decides; a `tools/call`
 *   that declares the extension may answer `resultType: "task"`, `tasks/get` returns the result inline and
 *   the questions of an `input_required` task, which go back with `tasks/update` (see ext-tasks.ts).
 */
export interface ToolTaskProtocol {
  /** Whether the server runs `tools/call` as a task. */
  supported(client: Client): boolean;
  /** The server decides which calls become tasks (the extension), not the tool's `execution.taskSupport`. */
  readonly serverDirected: boolean;
  /** Starts the call: a task, or the tool's result when the server answered at once. `definition` is the tool as listed. */
  create(client: Client, tool: string, args: Record<string, unknown>, options: RequestOptions, definition?: Tool): Promise<Task | { result: CallToolResult }>;
  get(client: Client, taskId: string, options: RequestOptions): Promise<Task>;
  /** The final result; for an `input_required` task without `answer`, waits while the server's requests are answered. */
  result(client: Client, task: Task, options: RequestOptions, definition?: Tool): Promise<CallToolResult>;
  /** Answers an `input_required` task's questions; the task moves on, and is polled again. */
  answer?(client: Client, task: Task, options: RequestOptions): Promise<void>;
  cancel(client: Client, taskId: string, options: RequestOptions): Promise<void>;
  list(client: Client, options: RequestOptions): Promise<Task[]>;
}

/** How long a finished task's result is asked to stay available. */
const TASK_TTL_MS = 10 * 60_000;
/** At most this many pages of tasks/list: a server handing out cursors forever is cut off. */
const MAX_TASK_PAGES = 20;

/** SEP-1686 tasks; a task's result is held to the tool's outputSchema as a plain call's is. */
export const sep1686Tasks: ToolTaskProtocol = {
  supported: (client) => client.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined,
  serverDirected: false,
  async create(client, tool, args, options) {
    const created = await client.request(
      { method: "tools/call", params: { name: tool, arguments: args, task: { ttl: TASK_TTL_MS } } },
      CreateTaskResultSchema,
      options,
    );
    return created.task;
  },
  get: (client, taskId, options) => client.request({ method: "tasks/get", params: { taskId } }, GetTaskResultSchema, options),
  async result(client, task, options, definition) {
    const result = await client.request({ method: "tasks/result", params: { taskId: task.taskId } }, CallToolResultSchema, options);
    return checkedToolResult(definition, result);
  },
  async cancel(client, taskId, options) {
    await client.request({ method: "tasks/cancel", params: { taskId } }, CancelTaskResultSchema, options);
  },
  async list(client, options) {
    const tasks: Task[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TASK_PAGES; page++) {
      const result = await client.request({ method: "tasks/list", params: cursor === undefined ? {} : { cursor } }, ListTasksResultSchema, options);
      tasks.push(...result.tasks);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    return tasks;
  },
};

/** Answers one of a server's questions (elicitation, sampling, roots) as the client's handlers would. */
export type AnswerInputRequest = (request: ExtInputRequest, signal: AbortSignal | undefined) => Promise<Record<string, unknown>>;

/**
 * The tasks extension (SEP-2663) on one server, as a ToolTaskProtocol. It keeps each running task's last
 * detailed state (its inline result, error or questions) and the question keys already answered, which the
 * spec asks clients not to answer twice. Each task it starts is asked to be watched: where the server agrees, its
 * status notifications come to `notify` (and fill the same state), and polling is only the fallback. A task's result
 * is held to the tool's outputSchema as a plain call's is.
 */
export function extensionTasks(ext: TasksExtensionClient, answer: AnswerInputRequest, notify: (task: Task) => void): ToolTaskProtocol {
  const latest = new Map<string, DetailedTask>();
  const answered = new Map<string, Set<string>>();
  /** The close of each running task's subscription to its notifications. */
  const watching = new Map<string, TaskStatusWatch>();
  /** The serverInfo stamp of the last result about each running task that had one: a status notification has none. */
  const stamps = new Map<string, Implementation>();
  const timeoutOf = (options: RequestOptions) => ({ timeout: options.timeout ?? POLL.maxMaxMs, ...(options.signal ? { signal: options.signal } : {}) });
  const forget = (taskId: string): void => {
    latest.delete(taskId);
    answered.delete(taskId);
    stamps.delete(taskId);
    void watching.get(taskId)?.close();
    watching.delete(taskId);
  };
  ext.onStatus((task) => {
    // Only about a task this host runs: nothing else is kept.
    if (watching.has(task.taskId)) notify(seen(task));
  });
  const seen = (told: DetailedTask): Task => {
    // An ended task stays ended, and is reported so: a tasks/get answered before its end may come after the notification that told it.
    const known = latest.get(told.taskId);
    const task = known && ENDED_TASK_STATUSES.has(known.status) ? known : told;
    if (task.status === "cancelled") forget(task.taskId);
    else if (task === told) {
      latest.set(task.taskId, task);
      const stamp = serverInfoOf(task._meta);
      if (stamp) stamps.set(task.taskId, stamp);
    }
    return {
      taskId: task.taskId,
      status: task.status,
      ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
      createdAt: task.createdAt,
      lastUpdatedAt: task.lastUpdatedAt,
      ttl: task.ttlMs,
      ...(task.pollIntervalMs !== undefined ? { pollInterval: task.pollIntervalMs } : {}),
    };
  };
  const answerAll = async (requests: Record<string, ExtInputRequest>, skip: Set<string>, signal: AbortSignal | undefined) => {
    const count = Object.keys(requests).length;
    if (count > MAX_INPUT_REQUESTS) {
      throw new SdkError(SdkErrorCode.InvalidResult, `the server asked ${count} questions at once; at most ${MAX_INPUT_REQUESTS} are answered`);
    }
    const responses: Record<string, unknown> = {};
    for (const [key, request] of Object.entries(requests)) {
      if (skip.has(key)) continue;
      responses[key] = await answer(request, signal);
      skip.add(key);
    }
    return responses;
  };
  return {
    supported: serverDeclaresTasksExtension,
    serverDirected: true,
    async create(client, tool, args, options, definition) {
      const outcome = await ext.callTool(client, tool, args, { ...options, ...(definition ? { toolDefinition: definition } : {}) });
      if (outcome.kind === "complete") return { result: outcome.result };
      const task = seen(outcome.task);
      if (task.status === "working" || task.status === "input_required") watching.set(task.taskId, ext.watch(task.taskId, options.timeout ?? POLL.maxMaxMs));
      return task;
    },
    get: async (_client, taskId, options) => seen(await ext.get(taskId, timeoutOf(options))),
    async result(_client, task, options, definition) {
      const detail = latest.get(task.taskId) ?? (await ext.get(task.taskId, timeoutOf(options)));
      const stamp = serverInfoOf(detail._meta) ?? stamps.get(task.taskId);
      forget(task.taskId);
      if (detail.status === "failed" && detail.error) throw new ProtocolError(detail.error.code, detail.error.message, detail.error.data);
      const parsed = CallToolResultSchema.safeParse(detail.result);
      if (!parsed.success) throw new SdkError(SdkErrorCode.InvalidResult, `task ${task.taskId} is ${detail.status} without a tool result`);
      return checkedToolResult(definition, withServerInfo(parsed.data, stamp));
    },
    async answer(_client, task, options) {
      const requests = latest.get(task.taskId)?.inputRequests ?? {};
      let skip = answered.get(task.taskId);
      if (!skip) answered.set(task.taskId, (skip = new Set()));
      const inputResponses = await answerAll(requests, skip, options.signal);
      if (Object.keys(inputResponses).length > 0) await ext.update(task.taskId, inputResponses, timeoutOf(options));
    },
    async cancel(_client, taskId, options) {
      forget(taskId);
      await ext.cancel(taskId, timeoutOf(options));
    },
    // The extension has no tasks/list: the hub lists the tasks it waits for.
    list: async () => [],
  };
}

/** A call whose timeout is above this runs as a task under `tasks: "auto"` when the tool allows it. */
export const AUTO_TASK_ABOVE_MS = 60_000;

/** Whether a call of `tool` runs as a task. */
export function runsAsTask(tool: Tool | undefined, mode: TaskMode, serverSupports: boolean, timeoutMs: number, serverDirected = false): boolean {
  // With the extension the tool says nothing (2026-07-28 has no taskSupport): the call is offered as a task, the server decides.
  const support = serverDirected ? "optional" : tool?.execution?.taskSupport;
  if (support === "required") return true;
  if (support !== "optional" || !serverSupports) return false;
  return mode === "always" || (mode === "auto" && timeoutMs > AUTO_TASK_ABOVE_MS);
}

/**
 * Polling: the first wait, then each wait twice the last, up to the server's `pollInterval` (bounded), so that a
 * change is seen within the task's age so far, and a task of 5 s at the common pollInterval of 1000 ms is asked about
 * 9 times (the SDK's callToolStream asks at once, then every pollInterval: 6 times). One server's tasks are polled in
 * step (see LATE_FRACTION), so that 20 such tasks cost the caller about as much CPU as the SDK's fewer polls
 * (bench/tasks.ts). A server that has sent status notifications is polled only as a fallback: from its pollInterval
 * up to maxMaxMs.
 */
export const POLL = { firstMs: 50, factor: 2, defaultMaxMs: 1000, minMaxMs: 100, maxMaxMs: 5000 } as const;

/** Notices kept for tasks no wait has asked about yet (one came before its task's first wait); the oldest go first. */
const MAX_UNCLAIMED_NOTICES = 256;

/**
 * A wait may end up to this fraction of its length late, never early: waits of one server's tasks whose windows
 * overlap share a timer, which ends them together at the latest of their dues, and their polls go out together. So
 * the tasks are polled in step (one wake-up and few reads for many requests), not each on a clock of its
 * own.
 */
const LATE_FRACTION = 0.25;

/** Waits that end together: at `due`, which may move as late as `latest`. */
interface WaitBatch {
  due: number;
  latest: number;
  timer: NodeJS.Timeout;
  tasks: Set<string>;
}

/**
 * The waits between polls of one server's tasks, and its `notifications/tasks/status` (SEP-1686 lets servers send
 * them; the SDK's server does on every change): a wait ends at the next notice for its task, so the change is seen
 * at once and polls are few. Waits that may end together share a timer (see LATE_FRACTION).
 */
export class TaskNotices {
  /** Whether the server has sent one: polling is then only a fallback. */
  sent = false;
  private readonly unclaimed = new Map<string, Task>();
  private readonly waiters = new Map<string, { batch: WaitBatch; settle: (task: Task | undefined) => void; fail: (reason: unknown) => void }>();
  private readonly batches = new Set<WaitBatch>();

  notify(task: Task): void {
    this.sent = true;
    const waiter = this.take(task.taskId);
    if (waiter) return waiter.settle(task);
    this.unclaimed.delete(task.taskId);
    this.unclaimed.set(task.taskId, task);
    if (this.unclaimed.size > MAX_UNCLAIMED_NOTICES) this.unclaimed.delete(this.unclaimed.keys().next().value as string);
  }

  /** The task as the next notice for it says, or undefined after `ms` (or a little more); rejects when interrupted. */
  wait(taskId: string, ms: number): Promise<Task | undefined> {
    const early = this.unclaimed.get(taskId);
    if (early) {
      this.unclaimed.delete(taskId);
      return Promise.resolve(early);
    }
    const now = Date.now();
    const due = now + ms;
    const latest = due + ms * LATE_FRACTION;
    let batch: WaitBatch | undefined;
    for (const pending of this.batches) if (due <= pending.latest && latest >= pending.due) batch ??= pending;
    if (!batch) {
      const made: WaitBatch = { due, latest, tasks: new Set(), timer: setTimeout(() => this.end(made), ms) };
      this.batches.add((batch = made));
    } else {
      batch.latest = Math.min(batch.latest, latest);
      if (due > batch.due) {
        const moved = batch;
        clearTimeout(moved.timer);
        moved.due = due;
        moved.timer = setTimeout(() => this.end(moved), ms);
      }
    }
    batch.tasks.add(taskId);
    return new Promise((settle, fail) => this.waiters.set(taskId, { batch, settle, fail }));
  }

  /** Ends the wait for the task at once, rejecting with `reason` (its caller's signal aborted); without a wait, nothing. */
  interrupt(taskId: string, reason: unknown): void {
    this.take(taskId)?.fail(reason);
  }

  /** A task that ended: a late notice for it is not kept. */
  forget(taskId: string): void {
    this.unclaimed.delete(taskId);
  }

  /** A batch's time came: each of its waits ends without a notice. */
  private end(batch: WaitBatch): void {
    this.batches.delete(batch);
    for (const taskId of batch.tasks) {
      this.waiters.get(taskId)?.settle(undefined);
      this.waiters.delete(taskId);
    }
  }

  /** Takes the task's wait out of its batch, whose timer goes when no wait is left in it. */
  private take(taskId: string): { settle: (task: Task | undefined) => void; fail: (reason: unknown) => void } | undefined {
    const waiter = this.waiters.get(taskId);
    if (!waiter) return undefined;
    this.waiters.delete(taskId);
    const { batch } = waiter;
    batch.tasks.delete(taskId);
    if (batch.tasks.size === 0) {
      clearTimeout(batch.timer);
      this.batches.delete(batch);
    }
    return waiter;
  }
}

export interface RunTaskOptions {
  /** Bounds each request (and, reset by every change of status, the whole wait). */
  requestOptions: RequestOptions & { timeout: number };
  onStatus?: (task: Task) => void;
  /** The server's status notifications; without them, polling alone. */
  notices?: TaskNotices;
  /** The tool as listed: its result is held to its outputSchema, and its declared argument headers sent. */
  definition?: Tool;
}

/**
 * Runs a tool call as a task: creates it, polls with backoff until it ends (or needs input,
 * when `tasks/result` carries the server's questions to the client's handlers), and returns
 * the tool's result. Aborting the signal, or no change of status within the timeout,
 * cancels the task on the server.
 */
export async function runToolTask(
  protocol: ToolTaskProtocol,
  client: Client,
  tool: string,
  args: Record<string, unknown>,
  { requestOptions, onStatus, notices = new TaskNotices(), definition }: RunTaskOptions,
): Promise<CallToolResult> {
  const { signal, timeout } = requestOptions;
  // Polls go without the signal (the SDK adds and removes a listener on it per request): one listener for the whole
  // task ends the wait between polls, and the signal is looked at before each.
  const pollOptions: RequestOptions = { timeout };
  const created = await protocol.create(client, tool, args, requestOptions, definition);
  if ("result" in created) return created.result;
  let task = created;
  onStatus?.(task);
  const cap = (pollInterval: number | null | undefined): number => Math.min(Math.max(pollInterval ?? POLL.defaultMaxMs, POLL.minMaxMs), POLL.maxMaxMs);
  let delay: number = notices.sent ? cap(task.pollInterval) : POLL.firstMs;
  let changedAt = Date.now();
  const interrupt = (): void => notices.interrupt(created.taskId, signal?.reason);
  signal?.addEventListener("abort", interrupt, { once: true });
  try {
    for (;;) {
      if (task.status === "input_required" && protocol.answer) {
        // A person may take a while: the wait for a change starts when the answers are in.
        await protocol.answer(client, task, requestOptions);
        changedAt = Date.now();
      } else if (task.status === "completed" || task.status === "input_required") {
        return await protocol.result(client, task, requestOptions, definition);
      } else if (task.status === "failed") {
        return await failedResult(protocol, client, task, requestOptions);
      } else if (task.status === "cancelled") {
        return { isError: true, content: [{ type: "text", text: `the server cancelled the task${task.statusMessage ? `: ${task.statusMessage}` : ""}` }] };
      }
      signal?.throwIfAborted();
      const noticed = await notices.wait(task.taskId, delay);
      if (!noticed && Date.now() - changedAt > timeout) {
        throw new SdkError(SdkErrorCode.RequestTimeout, `task ${task.taskId} did not change status within ${timeout} ms`);
      }
      const next = noticed ?? (await protocol.get(client, task.taskId, pollOptions));
      if (next.status !== task.status || next.statusMessage !== task.statusMessage) {
        changedAt = Date.now();
        onStatus?.(next);
      }
      delay = Math.min(delay * POLL.factor, notices.sent ? POLL.maxMaxMs : cap(next.pollInterval));
      task = next;
    }
  } catch (error) {
    if (!ENDED_TASK_STATUSES.has(task.status)) {
      // Bounded on its own: the caller's signal may be the reason we are here.
      await protocol.cancel(client, task.taskId, { timeout: Math.min(timeout, 5000) }).catch(() => undefined);
    }
    throw error;
  } finally {
    signal?.removeEventListener("abort", interrupt);
  }
}

/**
 * One server's task-backed calls: runs them (status as events, and as progress so that every
 * caller showing progress shows the task's), and remembers those in flight for tasks/list and tasks/get.
 */
export class ToolTasks {
  private readonly inFlight = new Map<string, HubTask>();
  private readonly notices = new TaskNotices();

  constructor(
    private readonly server: string,
    private readonly emit: (event: HubEvent) => void,
    /** The task form the connected server speaks. */
    private readonly protocol: () => ToolTaskProtocol,
  ) {}

  async run(
    client: Client,
    tool: string,
    args: Record<string, unknown>,
    requestOptions: RequestOptions & { timeout: number },
    onProgress: CallToolOptions["onProgress"],
    definition: Tool | undefined,
  ): Promise<CallToolResult> {
    let taskId: string | undefined;
    let changes = 0;
    try {
      return await runToolTask(this.protocol(), client, tool, args, {
        requestOptions,
        notices: this.notices,
        ...(definition ? { definition } : {}),
        onStatus: (task) => {
          taskId = task.taskId;
          this.inFlight.set(task.taskId, { ...task, server: this.server, tool });
          this.emit({ type: "task-status", server: this.server, tool, task });
          onProgress?.({ progress: ++changes, message: `task ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ""}` });
        },
      });
    } finally {
      if (taskId !== undefined) {
        this.inFlight.delete(taskId);
        this.notices.forget(taskId);
      }
    }
  }

  /** A `notifications/tasks/status` from the server. */
  notified(task: Task): void {
    this.notices.notify(task);
  }

  /** What the server lists (where it can), with the tasks in flight it does not list. */
  async list(client: Client, options: RequestOptions): Promise<HubTask[]> {
    const protocol = this.protocol();
    const listed = client.getServerCapabilities()?.tasks?.list ? await protocol.list(client, options) : [];
    const byId = new Map<string, HubTask>([...this.inFlight].map(([id, task]) => [id, { ...task }]));
    for (const task of listed) byId.set(task.taskId, { ...byId.get(task.taskId), ...task, server: this.server });
    return [...byId.values()];
  }

  async get(client: Client, taskId: string, options: RequestOptions): Promise<HubTask> {
    const task = await this.protocol().get(client, taskId, options);
    return { ...this.inFlight.get(taskId), ...task, server: this.server };
  }
}

async function failedResult(protocol: ToolTaskProtocol, client: Client, task: Task, options: RequestOptions): Promise<CallToolResult> {
  try {
    return await protocol.result(client, task, options);
  } catch (error) {
    const why = task.statusMessage ?? (error instanceof Error ? error.message : String(error));
    return { isError: true, content: [{ type: "text", text: `the task failed: ${why}` }] };
  }
}

/**
 * A 2026-07-28 server stamps each result it sends with its serverInfo (in `_meta`): a plain call's result has it, a
 * task's result comes inside the tasks/get result that has it, or in a status notification, which has none (the
 * stamp is then that of the last result about the task: its tools/call's, or a tasks/get's). The task's result takes
 * that stamp where it has none of its own, so that it reads as the same call made plainly does (and as SDK v2's
 * Client returns that one).
 */
function withServerInfo(result: CallToolResult, stamp: Implementation | undefined): CallToolResult {
  if (result._meta?.[SERVER_INFO_META_KEY] !== undefined || stamp === undefined) return result;
  return { ...result, _meta: { ...result._meta, [SERVER_INFO_META_KEY]: stamp } };
}

/** The serverInfo stamp in a result's `_meta` (unchecked), where it is one. */
function serverInfoOf(meta: unknown): Implementation | undefined {
  if (typeof meta !== "object" || meta === null) return undefined;
  const stamp = ImplementationSchema.safeParse((meta as Record<string, unknown>)[SERVER_INFO_META_KEY]);
  return stamp.success ? stamp.data : undefined;
}
