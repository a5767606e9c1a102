import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { CLI_ENTRY } from "../../src/config/bundled-servers.js";
import type { ServerConfig } from "../../src/config/schema.js";
import { createHubServer } from "../../src/gateway/hub-server.js";
import { TASKS_EXTENSION_ID } from "../../src/mcp/tasks/ext-tasks.js";
import { TaskStore } from "../../src/mcp/tasks/ext-tasks-server.js";
import type { Hub } from "../../src/mcp/hub.js";
import type { HubEvent } from "../../src/mcp/types.js";
import { hubPerTest } from "../mcp/hub-per-test.js";
import { fixture, waitUntil } from "../mcp/processes.js";
import { startHarness } from "./harness.js";

/**
 * The hub as one MCP server serves the tasks extension (2026-07-28, SEP-2663): toolbridge's own Hub is its client,
 * of `toolbridge serve hub` over stdio and of the gateway's /mcp over HTTP, with the extension test server
 * (test/fixtures/servers/ext-tasks-server.mjs, which declares the extension) behind it.
 */

const hubs = hubPerTest("toolbridge-hub-server-tasks-");
const JOBS = fixture("ext-tasks-server.mjs");

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

/** The outer hub, and the task statuses it hears of from the served hub. */
async function outerHub(bridge: ServerConfig): Promise<{ hub: Hub; statuses: string[] }> {
  const hub = await hubs.connect({ bridge: { ...bridge, tasks: "always" } });
  const statuses: string[] = [];
  hub.on((event: HubEvent) => (event.type === "task-status" ? statuses.push(event.task.status) : undefined));
  return { hub, statuses };
}

/** `toolbridge serve hub` over stdio, with the extension test server behind it. */
function serveHub(): ServerConfig {
  const config = join(hubs.dir, "served.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { jobs: JOBS } }));
  return { command: process.execPath, args: [CLI_ENTRY, "serve", "hub", "-c", config, "--approve", "all"] };
}

/** What the server behind the served hub received, once it includes `method` (asked again for up to 5 s). */
async function upstreamSeen(hub: Hub, method: string): Promise<string[]> {
  let methods: string[] = [];
  for (let tries = 0; tries < 100 && !methods.includes(method); tries++) {
    if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    methods = JSON.parse(text(await hub.callTool("seen", {}))) as string[];
  }
  return methods;
}

describe("`toolbridge serve hub` with the tasks extension", () => {
  it("declares the extension and runs a slow task-capable tool as a task, polled to its result", async () => {
    const { hub, statuses } = await outerHub(serveHub());
    expect(hub.servers()[0]).toMatchObject({ status: "connected", protocolVersion: "2026-07-28", tasksExtension: true });
    expect(text(await hub.callTool("slow_compute", { ms: 600 }))).toBe("computed after 600 ms");
    expect(statuses[0]).toBe("working");
    expect(statuses.at(-1)).toBe("completed");
  }, 60_000);

  it("cancels the background call when the client cancels the task, and the server behind is told", async () => {
    const { hub, statuses } = await outerHub(serveHub());
    const controller = new AbortController();
    const call = hub.callTool("never_ends", {}, { signal: controller.signal });
    await waitUntil(() => statuses.includes("working"), 20_000, "the task to start");
    // Cancelled once the call behind it runs as a task of the server behind (one cancelled sooner never starts there).
    expect(await upstreamSeen(hub, "tools/call never_ends +tasks")).toContain("tools/call never_ends +tasks");
    controller.abort(new Error("the user gave up"));
    await expect(call).rejects.toThrow();
    expect(await upstreamSeen(hub, "tasks/cancel")).toContain("tasks/cancel");
  }, 60_000);

  it("answers a 2025-11-25 client's call of a task-only tool with its result, waiting for the task itself", async () => {
    const client = new LegacyClient({ name: "test", version: "1.0.0" });
    const { command, args } = serveHub() as { command: string; args: string[] };
    try {
      await client.connect(new LegacyStdioClientTransport({ command, args, stderr: "pipe" }));
      // The server behind refuses it without the extension (-32021), which this client cannot declare.
      const result = await client.callTool({ name: "failing_job", arguments: {} });
      expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: expect.stringContaining("the job found nothing to do") }] });
    } finally {
      await client.close();
    }
  }, 60_000);

  it("answers tasks/get of a task it never started with a clear error", async () => {
    const { hub } = await outerHub(serveHub());
    await expect(hub.task("no-such-task", "bridge")).rejects.toThrow(/unknown task "no-such-task": never started here, or held past its ttl/);
  }, 60_000);
});

describe("the gateway's /mcp with the tasks extension", () => {
  it("runs a slow task-capable tool as a task over HTTP, polled to its result", async () => {
    const harness = await startHarness({ servers: { jobs: JOBS }, approve: "all" });
    try {
      const { hub, statuses } = await outerHub({ url: `${harness.gateway.url}/mcp` });
      expect(hub.servers()[0]).toMatchObject({ status: "connected", protocolVersion: "2026-07-28", tasksExtension: true });
      expect(text(await hub.callTool("slow_compute", { ms: 600 }))).toBe("computed after 600 ms");
      expect(statuses[0]).toBe("working");
      expect(statuses.at(-1)).toBe("completed");
      // A plain call still goes through: the server behind's own answer.
      expect(text(await hub.callTool("greet", { name: "Ada" }))).toBe("Hello, Ada!");
    } finally {
      await harness.close();
    }
  }, 60_000);
});

describe("the hub server's task requests, on the wire", () => {
  const ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const WITH_TASKS = { ...ENVELOPE, "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS_EXTENSION_ID]: {} } } };

  /** A hub server on a linked pair, its store holding at most `maxTasks`; `request` sends one raw request. */
  async function served(maxTasks: number, ttlMs?: number) {
    const hub = await hubs.connect({ jobs: JOBS });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const tasks = new TaskStore({ maxTasks, pollIntervalMs: 50, ...(ttlMs !== undefined ? { ttlMs } : {}) });
    const server = createHubServer(hub, { approve: "all", servers: {} }, tasks);
    await server.connect(serverSide);
    const answers = new Map<number, (message: JSONRPCMessage) => void>();
    clientSide.onmessage = (message) => void ("id" in message && typeof message.id === "number" ? answers.get(message.id)?.(message) : undefined);
    await clientSide.start();
    let next = 0;
    const request = (method: string, params: Record<string, unknown>, meta: Record<string, unknown> = WITH_TASKS): Promise<Record<string, unknown>> => {
      const id = ++next;
      const answered = new Promise<Record<string, unknown>>((resolve) => answers.set(id, (message) => resolve(message as unknown as Record<string, unknown>)));
      void clientSide.send({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } });
      return answered;
    };
    const close = async () => {
      tasks.close();
      await server.close();
    };
    return { hub, request, close };
  }

  /** Runs `test` against a hub server (see served), closed after it whatever happens. */
  async function withServed(store: { maxTasks: number; ttlMs?: number }, test: (serving: Served) => Promise<void>): Promise<void> {
    const serving = await served(store.maxTasks, store.ttlMs);
    try {
      await test(serving);
    } finally {
      await serving.close();
    }
  }

  it("refuses tasks/get, tasks/update and tasks/cancel with -32021 when the request does not declare the extension", async () => {
    await withServed({ maxTasks: 4 }, async ({ hub, request }) => {
      const { result } = await request("tools/call", { name: "never_ends", arguments: {} });
      const taskId = (result as { taskId: string }).taskId;
      // Held for the server behind's ttl (a minute), shorter than the store's.
      expect(result).toMatchObject({ resultType: "task", status: "working", ttlMs: 60_000 });
      // SEP-2663's flat CreateTaskResult: no content the SDK's tool-result check added.
      expect(result).not.toHaveProperty("content");
      expect(await upstreamSeen(hub, "tools/call never_ends +tasks")).toContain("tools/call never_ends +tasks");
      for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
        expect(await request(method, { taskId }, ENVELOPE)).toMatchObject({
          error: { code: -32021, message: `${method} needs the ${TASKS_EXTENSION_ID} extension in the request's capabilities` },
        });
      }
      expect(await request("tasks/update", { taskId, inputResponses: {} })).toMatchObject({ result: {} });
      expect(await request("tasks/cancel", { taskId })).toMatchObject({ result: {} });
      // The cancel went to the server behind, whose word the status is.
      expect(await upstreamSeen(hub, "tasks/cancel")).toContain("tasks/cancel");
      expect(await request("tasks/get", { taskId })).toMatchObject({ result: { taskId, status: "cancelled", statusMessage: "cancelled by the client" } });
    });
  }, 30_000);

  /** tasks/get, asked again every 25 ms (for up to 5 s) until the task's status is one of `statuses`. */
  async function settled(request: Served["request"], taskId: string, ...statuses: string[]): Promise<Record<string, unknown>> {
    let task: Record<string, unknown> = {};
    for (let tries = 0; tries < 200 && !statuses.includes(task.status as string); tries++) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 25));
      const answer = await request("tasks/get", { taskId });
      task = (answer.result ?? answer) as Record<string, unknown>;
    }
    return task;
  }
  type Served = Awaited<ReturnType<typeof served>>;

  it("answers a call that does not declare the extension plainly, and puts a task's result inline in tasks/get", async () => {
    await withServed({ maxTasks: 4 }, async ({ request }) => {
      expect(await request("tools/call", { name: "slow_compute", arguments: { ms: 10 } }, ENVELOPE)).toMatchObject({
        result: { content: [{ type: "text", text: "computed after 10 ms" }] },
    });
    const { result } = await request("tools/call", { name: "slow_compute", arguments: { ms: 10 } });
    const taskId = (result as { taskId: string }).taskId;
    expect(await settled(request, taskId, "completed")).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "computed after 10 ms" }] } });
    });
  }, 30_000);

  it("leaves to the server behind which calls become tasks, and relays its task under an id of the store's", async () => {
    await withServed({ maxTasks: 4 }, async ({ request }) => {
      // A tool the server behind answers at once stays a plain call, though the client declared the extension.
      expect(await request("tools/call", { name: "greet", arguments: { name: "Ada" } })).toMatchObject({ result: { content: [{ type: "text", text: "Hello, Ada!" }] } });
      const { result } = (await request("tools/call", { name: "slow_compute", arguments: { ms: 10 } })) as { result: Record<string, unknown> };
      expect(result).toMatchObject({ resultType: "task", status: "working", pollIntervalMs: 100 });
      // The server behind counts its tasks (task-1 …): its ids never reach the client, nor reach its tasks.
      expect(result.taskId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      for (const guess of ["task-1", "task-2"]) expect(await request("tasks/get", { taskId: guess })).toMatchObject({ error: { code: -32602 } });
      expect(await settled(request, result.taskId as string, "completed")).toMatchObject({ taskId: result.taskId, status: "completed" });
    });
  }, 30_000);

  it("relays a task's failure as the server behind gives it: a protocol error fails the task, a tool error completes it", async () => {
    await withServed({ maxTasks: 4 }, async ({ request }) => {
      const failed = (await request("tools/call", { name: "protocol_error_job", arguments: {} })).result as { taskId: string };
      const task = await settled(request, failed.taskId, "failed");
      expect(task).toMatchObject({ status: "failed", error: { code: -32603, message: "the job's worker crashed" } });
      expect(task).not.toHaveProperty("result");
      const erring = (await request("tools/call", { name: "failing_job", arguments: {} })).result as { taskId: string };
      expect(await settled(request, erring.taskId, "completed")).toMatchObject({ result: { isError: true, content: [{ type: "text", text: "the job found nothing to do" }] } });
    });
  }, 30_000);

  it("relays a task's questions to the client, and its answers back to the server behind", async () => {
    await withServed({ maxTasks: 4 }, async ({ request }) => {
      const { taskId } = (await request("tools/call", { name: "multi_input", arguments: {} })).result as { taskId: string };
      const asking = await settled(request, taskId, "input_required");
      expect(Object.keys(asking.inputRequests as object).sort()).toEqual(["first", "second"]);
      expect(asking).toMatchObject({ inputRequests: { first: { method: "elicitation/create", params: { message: "First?" } } } });
      // One answer: the other question is still open.
      expect(await request("tasks/update", { taskId, inputResponses: { first: { action: "accept", content: { name: "Ada" } } } })).toMatchObject({ result: {} });
      expect(Object.keys((await settled(request, taskId, "input_required")).inputRequests as object)).toEqual(["second"]);
      await request("tasks/update", { taskId, inputResponses: { second: { action: "accept", content: { name: "Grace" } } } });
      expect(await settled(request, taskId, "completed")).toMatchObject({ result: { content: [{ type: "text", text: "Ada and Grace" }] } });
    });
  }, 30_000);

  it("refuses a task-only tool called without the extension with the server behind's -32021, naming the extension", async () => {
    await withServed({ maxTasks: 4 }, async ({ request }) => {
      const { error } = (await request("tools/call", { name: "failing_job", arguments: {} }, ENVELOPE)) as { error: { code: number; message: string; data: unknown } };
      expect(error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } } });
      expect(error.message).toContain("failing_job runs only as a task");
    });
  }, 30_000);

  it("refuses a task past the store's bound with one line, naming the bound, and cancels it on the server behind", async () => {
    await withServed({ maxTasks: 2 }, async ({ hub, request }) => {
      // The server behind would make tasks without end: the store holds two.
      for (let i = 0; i < 2; i++) expect(await request("tools/call", { name: "never_ends", arguments: {} })).toMatchObject({ result: { resultType: "task" } });
      const refused = (await request("tools/call", { name: "never_ends", arguments: {} })) as { error: { message: string } };
      expect(refused.error.message).toBe(
        `the task store is full: at most 2 tasks are held, each for 3600000 ms from its start; call again later, or without the ${TASKS_EXTENSION_ID} extension`,
      );
      expect(refused.error.message).not.toContain("\n");
      expect(await upstreamSeen(hub, "tasks/cancel")).toContain("tasks/cancel");
    });
  }, 30_000);

  it("bounds a hostile server behind: a task without an id is refused, and one asking 1000 questions is cancelled there and failed", async () => {
    await withServed({ maxTasks: 4 }, async ({ hub, request }) => {
      const bogus = (await request("tools/call", { name: "bad_task", arguments: {} })) as { result?: { isError?: boolean; content: { text: string }[] } };
      expect(bogus.result?.isError).toBe(true);
      expect(bogus.result?.content[0]?.text).toMatch(/Invalid result for tools\/call/);
      const { taskId } = (await request("tools/call", { name: "many_questions", arguments: {} })).result as { taskId: string };
      const task = await settled(request, taskId, "failed");
      const message = "the server behind asked 1000 questions at once; at most 32 are passed on, so the task was cancelled there";
      expect(task).toMatchObject({ status: "failed", statusMessage: message, error: { code: -32603, message } });
      expect(task).not.toHaveProperty("inputRequests");
      expect(await upstreamSeen(hub, "tasks/cancel")).toContain("tasks/cancel");
    });
  }, 30_000);

  it("forgets a task held past its ttl, one that never ends, cancelling it on the server behind, and makes room for a new one", async () => {
    await withServed({ maxTasks: 1, ttlMs: 1_000 }, async ({ hub, request }) => {
      const { result } = await request("tools/call", { name: "never_ends", arguments: {} });
      const taskId = (result as { taskId: string }).taskId;
      expect(await upstreamSeen(hub, "tools/call never_ends +tasks")).toContain("tools/call never_ends +tasks");
      // Swept on a timer: the server behind is told with nothing asked of the store.
      expect(await upstreamSeen(hub, "tasks/cancel")).toContain("tasks/cancel");
      expect(await request("tasks/get", { taskId })).toMatchObject({
        error: { code: -32602, message: `unknown task "${taskId}": never started here, or held past its ttl (1000 ms)` },
    });
    expect(await request("tools/call", { name: "never_ends", arguments: {} })).toMatchObject({ result: { resultType: "task" } });
    });
  }, 30_000);
});
