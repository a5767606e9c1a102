import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_ENTRY } from "../../src/config/bundled-servers.js";
import { RawRequests, TASKS_EXTENSION_ID, TasksExtensionClient, type DetailedTask } from "../../src/mcp/tasks/ext-tasks.js";
import { MAX_TASK_LISTENS_PER_CLIENT, MAX_TASKS_PER_WATCH, MAX_UNWRITTEN_TASK_NOTICES, serveTaskListens, TaskStore, withTaskListens } from "../../src/mcp/tasks/ext-tasks-server.js";
import { fixture, waitUntil } from "../mcp/processes.js";
import { startHarness } from "./harness.js";

/**
 * The hub serves SEP-2663 task status notifications on `subscriptions/listen`: a listen naming tasks hears each
 * change of their status as `notifications/tasks`, with no tasks/get from the client. Over stdio (`toolbridge serve
 * hub`) and HTTP (the gateway's /mcp), the extension test server behind, with the official v2 client's transports,
 * and hostile clients: one naming thousands of ids or opening too many subscriptions, one that never reads.
 */

const FRAMING = {
  protocolVersion: "2026-07-28",
  clientInfo: { name: "notices", version: "1.0.0" },
  clientCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } },
};

const JOBS = fixture("ext-tasks-server.mjs");

/** `toolbridge serve hub` over stdio, with the extension test server behind it (`jobs`); the cleanup. */
function servedHub(jobs = JOBS): { transport: Transport; close: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), "toolbridge-task-notices-"));
  const config = join(dir, "served.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { jobs } }));
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_ENTRY, "serve", "hub", "-c", config, "--approve", "all"], stderr: "pipe" });
  return { transport, close: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** The gateway's /mcp, with the extension test server behind it; the gateway's close. */
async function gatewayHub(): Promise<{ transport: Transport; close: () => Promise<void> }> {
  const harness = await startHarness({ servers: { jobs: JOBS }, approve: "all" });
  return { transport: new StreamableHTTPClientTransport(new URL(`${harness.gateway.url}/mcp`)), close: () => harness.close() };
}

describe.each([
  ["`toolbridge serve hub` over stdio", () => servedHub(), true],
  ["the gateway's /mcp over HTTP", gatewayHub, false],
])("%s: task status notifications to the v2 client", (_, open, oneConnection) => {
  let closeHub: () => Promise<void>;
  let client: Client;
  let raw: RawRequests;
  let ext: TasksExtensionClient;
  /** The methods this client sent, its own and the extension's. */
  const sent: string[] = [];
  const statuses: DetailedTask[] = [];

  beforeAll(async () => {
    const { transport, close } = await open();
    closeHub = close;
    client = new Client({ name: "notices", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(transport);
    raw = new RawRequests(transport, FRAMING);
    const send = transport.send.bind(transport);
    transport.send = (message) => {
      if ("method" in message) sent.push(message.method);
      return send(message);
    };
    ext = new TasksExtensionClient(raw);
    ext.onStatus((task) => statuses.push(task));
  }, 60_000);
  afterAll(async () => {
    await client.close();
    await closeHub();
  });

  it("tells a task's completion, its result inline, on the subscription naming it, with no tasks/get", async () => {
    expect(client.getProtocolEra()).toBe("modern");
    const outcome = await ext.callTool(client, "slow_compute", { ms: 800 }, {});
    if (outcome.kind !== "task") throw new Error("slow_compute did not run as a task");
    const { taskId } = outcome.task;
    const { acknowledged, close } = raw.listen({ taskIds: [taskId] }, 10_000);
    expect(await acknowledged).toEqual({ taskIds: [taskId] });
    await waitUntil(() => statuses.some((task) => task.taskId === taskId && task.status === "completed"), 20_000, "the task's completion to be told");
    expect(statuses.find((task) => task.status === "completed")).toMatchObject({ taskId, result: { content: [{ type: "text", text: "computed after 800 ms" }] } });
    expect(sent).not.toContain("tasks/get");
    await close();
  }, 60_000);

  /** A task of the hub's that stays working until cancelled: its id. */
  const runningTask = async (): Promise<string> => {
    const outcome = await ext.callTool(client, "never_ends", {}, {});
    if (outcome.kind !== "task") throw new Error("never_ends did not run as a task");
    return outcome.task.taskId;
  };

  it("honors, of thousands of ids named, only the tasks it holds, and tells every subscription of a cancellation", async () => {
    const taskId = await runningTask();
    const bogus = Array.from({ length: 5000 }, (_, index) => `not-a-task-${index}`);
    const many = raw.listen({ taskIds: [...bogus, taskId, 42, null] }, 10_000);
    expect(await many.acknowledged).toEqual({ taskIds: [taskId] });
    const one = raw.listen({ taskIds: [taskId] }, 10_000);
    expect(await one.acknowledged).toEqual({ taskIds: [taskId] });
    await ext.cancel(taskId, { timeout: 10_000 });
    await waitUntil(() => statuses.filter((task) => task.taskId === taskId && task.status === "cancelled").length === 2, 20_000, "both subscriptions to hear the cancellation");
    await many.close();
    await one.close();
  }, 60_000);

  // Over HTTP each subscription is a request of its own, bounded per key by the gateway (gateway.maxConcurrentPerKey).
  if (oneConnection) {
    it("refuses a subscription naming tasks past the bound of one connection with one line, and frees one closed", async () => {
      const taskId = await runningTask();
      const listens = Array.from({ length: MAX_TASK_LISTENS_PER_CLIENT }, () => raw.listen({ taskIds: [taskId] }, 10_000));
      await Promise.all(listens.map((listen) => listen.acknowledged));
      const refused = raw.listen({ taskIds: [taskId] }, 10_000);
      await expect(refused.acknowledged).rejects.toThrow(`subscriptions/listen refused: ${MAX_TASK_LISTENS_PER_CLIENT} subscriptions naming tasks are open on this connection; close one first`);
      await listens.pop()?.close();
      const again = raw.listen({ taskIds: [taskId] }, 10_000);
      expect(await again.acknowledged).toEqual({ taskIds: [taskId] });
      for (const listen of [...listens, again]) await listen.close();
      await ext.cancel(taskId, { timeout: 10_000 });
    }, 60_000);
  }
});

describe("`toolbridge serve hub`, a server behind that sends task status notifications", () => {
  it("follows a relayed task by its server's notifications, which alone tell its end (its tasks/get says working)", async () => {
    const { transport, close } = servedHub(fixture("ext-tasks-server.mjs", "--notify"));
    const client = new Client({ name: "notices", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    try {
      await client.connect(transport);
      const ext = new TasksExtensionClient(new RawRequests(transport, FRAMING));
      const statuses: DetailedTask[] = [];
      ext.onStatus((task) => statuses.push(task));
      const outcome = await ext.callTool(client, "stale_polls_job", { ms: 1500 }, {});
      if (outcome.kind !== "task") throw new Error("stale_polls_job did not run as a task");
      const { taskId } = outcome.task;
      expect(await ext.watch(taskId, 10_000).honored).toBe(true);
      await waitUntil(() => statuses.some((task) => task.status === "completed"), 20_000, "the relayed task's completion to be told");
      expect(statuses.find((task) => task.status === "completed")).toMatchObject({ taskId, result: { content: [{ type: "text", text: "told by notification" }] } });
      // The server behind's own task id never reaches the client, nor its notifications of tasks not relayed.
      expect(statuses.every((task) => task.taskId === taskId)).toBe(true);
    } finally {
      await client.close();
      await close();
    }
  }, 60_000);
});

/** A server that declares the extension and has nothing else. */
function bareServer(): McpServer {
  const server = new McpServer({ name: "notices", version: "1.0.0" });
  server.server.registerCapabilities({ extensions: { [TASKS_EXTENSION_ID]: {} } });
  return server;
}

/** `count` tasks of the store's, each working until finish() ends them all. */
function heldTasks(store: TaskStore, count: number): { ids: string[]; finish: () => void } {
  const ends: (() => void)[] = [];
  const ids = Array.from({ length: count }, () => store.start(() => new Promise((resolve) => ends.push(() => resolve({ content: [] })))).taskId);
  return { ids, finish: () => ends.forEach((end) => end()) };
}

const UNREAD = `task status notifications ended: ${MAX_UNWRITTEN_TASK_NOTICES} were still unread by this client; poll with tasks/get`;

describe("task status notifications to a client that never reads", () => {
  it("over HTTP: queues at most the bound unread, then ends the stream with one line naming the bound", async () => {
    const store = new TaskStore();
    const handler = withTaskListens(createMcpHandler(bareServer), store);
    const { ids, finish } = heldTasks(store, MAX_TASKS_PER_WATCH);
    const body = { jsonrpc: "2.0", id: 1, method: "subscriptions/listen", params: { notifications: { taskIds: ids }, _meta: { "io.modelcontextprotocol/protocolVersion": FRAMING.protocolVersion, "io.modelcontextprotocol/clientInfo": FRAMING.clientInfo, "io.modelcontextprotocol/clientCapabilities": FRAMING.clientCapabilities } } };
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" };
    try {
      const response = await handler.fetch(new Request("http://127.0.0.1/mcp", { method: "POST", headers, body: JSON.stringify(body) }), { parsedBody: body });
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
      // Nothing read until every task has ended: the acknowledgement and the first notifications fill the queue.
      finish();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const events = (await response.text()).split("\n\n").filter((frame) => frame.startsWith("event: message"));
      const messages = events.map((frame) => JSON.parse(frame.slice(frame.indexOf("data: ") + 6)) as Record<string, unknown>);
      expect(messages[0]).toMatchObject({ method: "notifications/subscriptions/acknowledged", params: { notifications: { taskIds: ids } } });
      const told = messages.filter((message) => message.method === "notifications/tasks");
      expect(told.length).toBeGreaterThan(0);
      expect(told.length).toBeLessThan(MAX_TASKS_PER_WATCH);
      expect(messages.at(-1)).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: UNREAD } });
    } finally {
      store.close();
      await handler.close();
    }
  }, 30_000);

  it("over stdio: sends at most the bound unread, then ends its task subscriptions with one line naming the bound", async () => {
    const store = new TaskStore({ maxTasks: 200 });
    const written: JSONRPCMessage[] = [];
    // The client's side of the connection: takes the entry's answers, and no task notification (never written out).
    const wire: Transport = {
      start: async () => undefined,
      close: async () => undefined,
      send: (message) => {
        written.push(message);
        return "method" in message && message.method === "notifications/tasks" ? new Promise<void>(() => undefined) : Promise.resolve();
      },
    };
    const entry = serveStdio(bareServer, { transport: wire });
    serveTaskListens(wire, store);
    try {
      const { ids, finish } = heldTasks(store, MAX_TASKS_PER_WATCH + 6);
      const meta = { "io.modelcontextprotocol/protocolVersion": FRAMING.protocolVersion, "io.modelcontextprotocol/clientInfo": FRAMING.clientInfo, "io.modelcontextprotocol/clientCapabilities": FRAMING.clientCapabilities };
      wire.onmessage?.({ jsonrpc: "2.0", id: "a", method: "subscriptions/listen", params: { notifications: { taskIds: ids.slice(0, MAX_TASKS_PER_WATCH) }, _meta: meta } });
      wire.onmessage?.({ jsonrpc: "2.0", id: "b", method: "subscriptions/listen", params: { notifications: { taskIds: ids.slice(MAX_TASKS_PER_WATCH) }, _meta: meta } });
      const acks = () => written.filter((message) => "method" in message && message.method === "notifications/subscriptions/acknowledged");
      await waitUntil(() => acks().length === 2, 10_000, "both subscriptions to be acknowledged");
      finish();
      const ended = () => written.filter((message) => "error" in message && message.error.message === UNREAD).map((message) => ("id" in message ? message.id : undefined));
      await waitUntil(() => ended().length === 2, 10_000, "both subscriptions to be ended");
      expect(ended().sort()).toEqual(["a", "b"]);
      expect(written.filter((message) => "method" in message && message.method === "notifications/tasks")).toHaveLength(MAX_UNWRITTEN_TASK_NOTICES);
    } finally {
      store.close();
      await entry.close();
    }
  }, 30_000);
});
