import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { CLI_ENTRY } from "../../src/config/bundled-servers.js";
import type { ServerConfig } from "../../src/config/schema.js";
import { createHubServer } from "../../src/gateway/hub-server.js";
import { TASKS_EXTENSION_ID } from "../../src/mcp/ext-tasks.js";
import { TaskStore } from "../../src/mcp/ext-tasks-server.js";
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

  it("refuses tasks/get, tasks/update and tasks/cancel with -32021 when the request does not declare the extension", async () => {
    const { hub, request, close } = await served(4);
    try {
      const { result } = await request("tools/call", { name: "never_ends", arguments: {} });
      const taskId = (result as { taskId: string }).taskId;
      expect(result).toMatchObject({ resultType: "task", status: "working", ttlMs: 3_600_000 });
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
      expect(await request("tasks/get", { taskId })).toMatchObject({ result: { taskId, status: "cancelled", statusMessage: "cancelled by the client" } });
      // The background call was aborted: the hub cancelled the task it had started on the server behind.
      expect(await upstreamSeen(hub, "tasks/cancel")).toContain("tasks/cancel");
    } finally {
      await close();
    }
  }, 30_000);

  it("answers a call that does not declare the extension plainly, and puts a task's result inline in tasks/get", async () => {
    const { request, close } = await served(4);
    try {
      expect(await request("tools/call", { name: "slow_compute", arguments: { ms: 10 } }, ENVELOPE)).toMatchObject({
        result: { content: [{ type: "text", text: "computed after 10 ms" }] },
      });
      const { result } = await request("tools/call", { name: "slow_compute", arguments: { ms: 10 } });
      const taskId = (result as { taskId: string }).taskId;
      let task: Record<string, unknown> = {};
      for (let tries = 0; tries < 200 && task.status !== "completed"; tries++) {
        task = (await request("tasks/get", { taskId })).result as Record<string, unknown>;
        if (task.status !== "completed") await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(task).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "computed after 10 ms" }] } });
    } finally {
      await close();
    }
  }, 30_000);

  it("refuses a task past the store's bound with one line, naming the bound", async () => {
    const { request, close } = await served(2);
    try {
      for (let i = 0; i < 2; i++) expect(await request("tools/call", { name: "never_ends", arguments: {} })).toMatchObject({ result: { resultType: "task" } });
      const refused = (await request("tools/call", { name: "never_ends", arguments: {} })) as { error: { message: string } };
      expect(refused.error.message).toBe(
        `the task store is full: at most 2 tasks are held, each for 3600000 ms from its start; call again later, or without the ${TASKS_EXTENSION_ID} extension`,
      );
      expect(refused.error.message).not.toContain("\n");
    } finally {
      await close();
    }
  }, 30_000);

  it("forgets a task held past its ttl, cancelling its call, and makes room for a new one", async () => {
    const { hub, request, close } = await served(1, 1_000);
    try {
      const { result } = await request("tools/call", { name: "never_ends", arguments: {} });
      const taskId = (result as { taskId: string }).taskId;
      expect(await upstreamSeen(hub, "tools/call never_ends +tasks")).toContain("tools/call never_ends +tasks");
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(await request("tasks/get", { taskId })).toMatchObject({
        error: { code: -32602, message: `unknown task "${taskId}": never started here, or held past its ttl (1000 ms)` },
      });
      expect(await upstreamSeen(hub, "tasks/cancel")).toContain("tasks/cancel");
      expect(await request("tools/call", { name: "never_ends", arguments: {} })).toMatchObject({ result: { resultType: "task" } });
    } finally {
      await close();
    }
  }, 30_000);
});
