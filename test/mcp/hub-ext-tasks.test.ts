import { Client, SERVER_INFO_META_KEY } from "@modelcontextprotocol/client";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { RawRequests } from "../../src/mcp/tasks/ext-tasks.js";
import type { Hub, HubOptions } from "../../src/mcp/hub.js";
import type { HubEvent, TaskMode } from "../../src/mcp/types.js";
import { hubPerTest } from "./hub-per-test.js";
import { fixture, httpFixture, waitUntil } from "./processes.js";

/**
 * The tasks extension of 2026-07-28 (SEP-2663), through the hub, against a v2 server that speaks only that revision
 * and runs tools as tasks (test/fixtures/servers/ext-tasks-server.mjs): the server decides, tasks/get carries the
 * result, a task's questions are answered with tasks/update.
 */

const hubs = hubPerTest("toolbridge-ext-tasks-");

async function connect(tasks: TaskMode | undefined, options: HubOptions = {}): Promise<{ hub: Hub; statuses: string[] }> {
  const hub = await hubs.connect({ jobs: { ...fixture("ext-tasks-server.mjs"), ...(tasks ? { tasks } : {}) } }, options);
  const statuses: string[] = [];
  hub.on((event: HubEvent) => (event.type === "task-status" ? statuses.push(event.task.status) : undefined));
  return { hub, statuses };
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;
const seen = async (hub: Hub): Promise<string[]> => JSON.parse(text(await hub.callTool("seen", {}))) as string[];
/** What the server received, once it includes `method` (asked again for up to 5 s). */
async function seenOnceIncludes(hub: Hub, method: string): Promise<string[]> {
  let methods = await seen(hub);
  for (let tries = 0; tries < 100 && !methods.includes(method); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    methods = await seen(hub);
  }
  expect(methods).toContain(method);
  return methods;
}

describe("a 2026-07-28 server with the tasks extension", () => {
  it("runs a tool as a task: the call declares the extension, the result comes inline from tasks/get", async () => {
    const { hub, statuses } = await connect("always");
    expect(hub.servers().find((s) => s.name === "jobs")).toMatchObject({ status: "connected", protocolVersion: "2026-07-28" });
    const progress: string[] = [];
    const result = await hub.callTool("slow_compute", { ms: 300 }, { onProgress: (p) => progress.push(p.message ?? "") });
    expect(result).toMatchObject({ content: [{ type: "text", text: "computed after 300 ms" }] });
    expect(result.isError).toBeFalsy();
    expect(statuses[0]).toBe("working");
    expect(statuses.at(-1)).toBe("completed");
    expect(progress).toContain("task completed");
    const methods = await seen(hub);
    expect(methods).toContain("tools/call slow_compute +tasks");
    expect(methods).toContain("tasks/get");
    expect(methods.some((m) => m.startsWith("tasks/result") || m.startsWith("tasks/list"))).toBe(false);
  }, 30_000);

  it("takes a result the server gives at once, for a tool it does not run as a task", async () => {
    const { hub, statuses } = await connect("always");
    expect(text(await hub.callTool("greet", { name: "Ada" }))).toBe("Hello, Ada!");
    expect(statuses).toEqual([]);
  }, 30_000);

  it("reports a failed task with the JSON-RPC error the server inlined", async () => {
    const { hub, statuses } = await connect("always");
    const result = await hub.callTool("protocol_error_job", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toBe("the task failed: the job's worker crashed");
    expect(statuses.at(-1)).toBe("failed");
  }, 30_000);

  it("reports a task the server cancelled, with its reason", async () => {
    const { hub, statuses } = await connect("always");
    const result = await hub.callTool("gives_up", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toBe("the server cancelled the task: quota exhausted");
    expect(statuses.at(-1)).toBe("cancelled");
  }, 30_000);

  it("cancels the task on the server with tasks/cancel when the caller gives up, plain calls going on meanwhile", async () => {
    // With tasks: never the task-only tool still becomes a task (after -32021), and greet goes through the SDK's client.
    const { hub, statuses } = await connect("never");
    const controller = new AbortController();
    const call = hub.callTool("never_ends", {}, { signal: controller.signal });
    await waitUntil(() => statuses.includes("working"), 10_000, "the task to start");
    expect(text(await hub.callTool("greet", { name: "Bo" }))).toBe("Hello, Bo!");
    controller.abort(new Error("the user pressed Ctrl-C"));
    await expect(call).rejects.toThrow();
    expect(await seen(hub)).toContain("tasks/cancel");
  }, 30_000);

  it("answers a task's input_required question through the hub's elicitation handler and tasks/update", async () => {
    const asked: string[] = [];
    const { hub, statuses } = await connect("always", {
      onElicitation: async (params) => {
        asked.push(params.message);
        return { action: "accept", content: { confirm: true } };
      },
    });
    expect(text(await hub.callTool("confirm_delete", { filename: "notes.txt" }))).toBe("deleted notes.txt");
    expect(asked).toEqual(["Delete notes.txt?"]);
    expect(statuses).toContain("input_required");
    expect(statuses.at(-1)).toBe("completed");
    expect((await seen(hub)).filter((m) => m === "tasks/update")).toHaveLength(1);
  }, 30_000);

  it("answers the questions a tools/call asks before it becomes a task, returning the request state", async () => {
    const { hub, statuses } = await connect("always", { onElicitation: async () => ({ action: "accept", content: { name: "Ada" } }) });
    expect(text(await hub.callTool("test_tool_with_task", {}))).toBe("job for Ada");
    expect(statuses.at(-1)).toBe("completed");
    expect((await seen(hub)).filter((m) => m.startsWith("tools/call test_tool_with_task"))).toHaveLength(2);
  }, 30_000);

  it("calls plainly, without the extension, when tasks are not asked for", async () => {
    const { hub, statuses } = await connect("never");
    expect(text(await hub.callTool("slow_compute", { ms: 10 }))).toBe("computed after 10 ms");
    expect(statuses).toEqual([]);
    expect(await seen(hub)).toContain("tools/call slow_compute");
  }, 30_000);

  it("calls a tool again as a task when the server refuses it plainly with -32021 naming the extension", async () => {
    for (const mode of [undefined, "never"] as const) {
      const { hub, statuses } = await connect(mode);
      // The tool ran and reported an error: the task completed, and its result is the tool's error.
      const result = await hub.callTool("failing_job", {});
      expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "the job found nothing to do" }] });
      expect(statuses.at(-1)).toBe("completed");
      expect((await seen(hub)).filter((m) => m.startsWith("tools/call failing_job"))).toEqual(["tools/call failing_job", "tools/call failing_job +tasks"]);
    }
  }, 30_000);

  it("answers two questions a task asks at once in one tasks/update", async () => {
    const { hub } = await connect("always", { onElicitation: async (params) => ({ action: "accept", content: { name: params.message.replace("?", "") } }) });
    expect(text(await hub.callTool("multi_input", {}))).toBe("First and Second");
    expect((await seen(hub)).filter((m) => m === "tasks/update")).toHaveLength(1);
  }, 30_000);

  it("does the same over stateless Streamable HTTP, a question answered mid-task included", async () => {
    const server = await httpFixture("ext-tasks-server.mjs", hubs.dir);
    try {
      const hub = await hubs.connect({ jobs: { url: server.url, tasks: "always" } }, { onElicitation: async () => ({ action: "decline" }) });
      expect(hub.servers()[0]).toMatchObject({ status: "connected", transport: "streamable-http", protocolVersion: "2026-07-28" });
      expect(text(await hub.callTool("slow_compute", {}))).toBe("computed after 300 ms");
      expect(text(await hub.callTool("confirm_delete", { filename: "notes.txt" }))).toBe("kept notes.txt");
      expect(await seen(hub)).toEqual(expect.arrayContaining(["tools/call confirm_delete +tasks", "tasks/get", "tasks/update"]));
    } finally {
      await server.stop();
    }
  }, 30_000);
});

describe("a task's call keeps the checks of a plain call", () => {
  it("holds a task's structured result to the tool's outputSchema, as a plain call's", async () => {
    for (const tasks of ["always", "never"] as const) {
      const { hub } = await connect(tasks);
      expect((await hub.callTool("typed_job", { count: 3 })).structuredContent).toEqual({ count: 3 });
      await expect(hub.callTool("typed_job", { count: 3, bad: true })).rejects.toThrow(
        /tools\/call typed_job on server "jobs" failed: .*Structured content does not match the tool's output schema/,
      );
      expect((await seen(hub)).filter((m) => m.startsWith("tools/call typed_job"))).toEqual(
        tasks === "always" ? ["tools/call typed_job +tasks", "tools/call typed_job +tasks"] : ["tools/call typed_job", "tools/call typed_job"],
      );
    }
  }, 30_000);

  it("hands on a task's result and a plain one as the SDK's own Client returns the same call: no resultType, nothing added or lost", async () => {
    const sdk = new Client({ name: "peer", version: "1" }, { versionNegotiation: { mode: "auto" } });
    await sdk.connect(new StdioClientTransport({ ...fixture("ext-tasks-server.mjs"), stderr: "ignore" }));
    try {
      // The v2 Client declares no extension: the server runs the call at once, and the Client's callTool shapes its answer.
      const typed = await sdk.callTool({ name: "typed_job", arguments: { count: 3 } });
      const greeting = await sdk.callTool({ name: "greet", arguments: { name: "Ada" } });
      expect(typed).toMatchObject({ content: [{ type: "text", text: "counted" }], structuredContent: { count: 3 } });
      expect(typed).not.toHaveProperty("resultType");
      for (const tasks of ["always", "never"] as const) {
        const { hub } = await connect(tasks);
        expect(await hub.callTool("typed_job", { count: 3 })).toEqual(typed);
        expect(await hub.callTool("greet", { name: "Ada" })).toEqual(greeting);
        expect((await seen(hub)).filter((m) => m.startsWith("tools/call typed_job"))).toEqual([`tools/call typed_job${tasks === "always" ? " +tasks" : ""}`]);
      }
    } finally {
      await sdk.close();
    }
  }, 30_000);

  it("sends an argument the tool declares as a header (x-mcp-header) with the task's tools/call over HTTP", async () => {
    const server = await httpFixture("ext-tasks-server.mjs", hubs.dir);
    try {
      for (const tasks of ["always", "never"] as const) {
        const hub = await hubs.connect({ jobs: { url: server.url, tasks } });
        expect(text(await hub.callTool("regional_job", { region: "eu-west" }))).toBe("ran in eu-west, header eu-west");
      }
      expect(await seen(await hubs.connect({ jobs: { url: server.url } }))).toEqual(
        expect.arrayContaining(["tools/call regional_job +tasks", "tools/call regional_job"]),
      );
    } finally {
      await server.stop();
    }
  }, 30_000);
});

describe("a hostile server with the tasks extension", () => {
  it("fails a call whose task result has no taskId, naming the call", async () => {
    const { hub } = await connect("always");
    await expect(hub.callTool("bad_task", {})).rejects.toThrow(/tools\/call bad_task on server "jobs" failed: Invalid result for tools\/call: .*taskId/s);
  }, 30_000);

  it("puts none of a thousand questions at once to the person, and cancels that task", async () => {
    const asked: string[] = [];
    const { hub } = await connect("always", { onElicitation: async (params) => (asked.push(params.message), { action: "decline" }) });
    await expect(hub.callTool("many_questions", {})).rejects.toThrow("the server asked 1000 questions at once; at most 32 are answered");
    expect(asked).toEqual([]);
    expect(await seen(hub)).toContain("tasks/cancel");
  }, 30_000);

  it("stops answering a tools/call that asks for input round after round, as the SDK's client stops a plain call", async () => {
    const { hub } = await connect("always", { roots: [hubs.dir] });
    await expect(hub.callTool("asks_forever", {})).rejects.toThrow("Multi-round-trip request 'tools/call' still required input after 10 rounds");
    // The first call and ten answered rounds, each declaring the extension.
    expect((await seen(hub)).filter((m) => m === "tools/call asks_forever +tasks")).toHaveLength(11);
  }, 30_000);
});

describe("a server that offers task status notifications", () => {
  const notifying = (tasks: TaskMode) => hubs.connect({ jobs: { ...fixture("ext-tasks-server.mjs", "--notify"), tasks } });

  it("asks for a task's notifications with subscriptions/listen, takes its end from one, and closes the subscription", async () => {
    const hub = await notifying("always");
    const statuses: string[] = [];
    const ids = new Set<string>();
    hub.on((event: HubEvent) => (event.type === "task-status" ? (statuses.push(event.task.status), ids.add(event.task.taskId)) : undefined));
    // Its tasks/get says "working" for ever: only the notification can end the call. The server also sends a
    // notification that is no task and one about a task nobody started (a completed "task-999"): both are dropped.
    expect(text(await hub.callTool("stale_polls_job", {}))).toBe("told by notification");
    expect([...ids]).toEqual(["task-1"]);
    expect(statuses.at(-1)).toBe("completed");
    // The subscription is closed once the call has its result, without the call waiting for it.
    expect(await seenOnceIncludes(hub, "listen closed task-1")).toContain("subscriptions/listen task-1 +tasks");
  }, 30_000);

  it("stamps the result of a task that ended only in a notification with the serverInfo a plain call's result has", async () => {
    const hub = await notifying("always");
    const plain = await hub.callTool("greet", { name: "Ada" });
    expect(plain._meta).toEqual({ [SERVER_INFO_META_KEY]: { name: "ext-tasks", version: "1.0.0" } });
    // Its tasks/get says "working" for ever: the result comes in a notifications/tasks, which carries no stamp.
    const result = await hub.callTool("stale_polls_job", {});
    expect(result).toEqual({ content: [{ type: "text", text: "told by notification" }], _meta: plain._meta });
  }, 30_000);

  it("polls a task whose notifications the server never acknowledges, and ends that subscription with the call", async () => {
    const hub = await hubs.connect({ jobs: { ...fixture("ext-tasks-server.mjs", "--notify", "--silent"), tasks: "always" } });
    expect(text(await hub.callTool("slow_compute", { ms: 300 }))).toBe("computed after 300 ms");
    // Closed when the call ends, not when the acknowledgement's wait (the call's timeout) runs out.
    const methods = await seenOnceIncludes(hub, "listen closed task-1");
    expect(methods).toEqual(expect.arrayContaining(["subscriptions/listen task-1 +tasks", "tasks/get"]));
  }, 30_000);

  it("fails a request of the extension whose response is not JSON-RPC, and hands every other message on", async () => {
    const passed: JSONRPCMessage[] = [];
    const transport: Transport = {
      start: async () => undefined,
      close: async () => undefined,
      // Answers each request with an error that is null, then a response for an id of the client's own.
      send: async (message) => {
        const id = "id" in message ? message.id : undefined;
        queueMicrotask(() => {
          transport.onmessage?.({ jsonrpc: "2.0", id, error: null } as unknown as JSONRPCMessage);
          transport.onmessage?.({ jsonrpc: "2.0", id: 7, result: {} });
        });
      },
      onmessage: (message) => void passed.push(message),
    };
    const raw = new RawRequests(transport, { protocolVersion: "2026-07-28", clientInfo: { name: "t", version: "1" }, clientCapabilities: {} });
    await expect(raw.request("tasks/get", { taskId: "t1" }, { timeout: 5000 })).rejects.toThrow(/^tasks\/get: not a JSON-RPC response: /);
    await new Promise((resolve) => setImmediate(resolve));
    expect(passed).toEqual([{ jsonrpc: "2.0", id: 7, result: {} }]);
  });
});
