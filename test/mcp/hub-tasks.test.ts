import { describe, expect, it } from "vitest";
import type { Hub } from "../../src/mcp/hub.js";
import { runsAsTask } from "../../src/mcp/tasks/tasks.js";
import type { HubEvent, TaskMode } from "../../src/mcp/types.js";
import { hubPerTest } from "./hub-per-test.js";
import { fixture, waitUntil } from "./processes.js";

/** When a tool runs as a task, and what happens to a task that never moves. */

const hubs = hubPerTest("toolbridge-tasks-");

async function connect(tasks?: TaskMode, serverTasks?: TaskMode): Promise<{ hub: Hub; statuses: string[] }> {
  const hub = await hubs.connect({ tasks: { ...fixture("task-server.mjs"), ...(serverTasks ? { tasks: serverTasks } : {}) } }, tasks ? { tasks } : {});
  const statuses: string[] = [];
  hub.on((event: HubEvent) => (event.type === "task-status" ? statuses.push(event.task.status) : undefined));
  return { hub, statuses };
}

describe("which calls run as tasks", () => {
  it("runs an optional tool as a task with tasks: always", async () => {
    const { hub: h, statuses } = await connect("always");
    expect((await h.callTool("may-be-a-task", {})).content).toEqual([{ type: "text", text: "done" }]);
    expect(statuses).toContain("completed");
  }, 30_000);

  it("calls an optional tool plainly with tasks: never, and by default for a call of ordinary length", async () => {
    for (const mode of ["never", undefined] as const) {
      const { hub: h, statuses } = await connect(mode);
      expect((await h.callTool("may-be-a-task", {})).content).toEqual([{ type: "text", text: "done" }]);
      expect(statuses).toEqual([]);
    }
  }, 30_000);

  it("lets a server's own tasks setting win over the hub's", async () => {
    const { hub: h, statuses } = await connect("never", "always");
    await h.callTool("may-be-a-task", {});
    expect(statuses).toContain("completed");
  }, 30_000);

  it("decides from taskSupport, the mode, the server's support and the timeout", () => {
    const tool = (taskSupport: "required" | "optional" | "forbidden") => ({ name: "t", inputSchema: { type: "object" as const }, execution: { taskSupport } });
    expect(runsAsTask(tool("required"), "never", false, 1000)).toBe(true);
    expect(runsAsTask(tool("forbidden"), "always", true, 1000)).toBe(false);
    expect(runsAsTask(tool("optional"), "always", false, 1000)).toBe(false);
    expect(runsAsTask(tool("optional"), "auto", true, 60_000)).toBe(false);
    expect(runsAsTask(tool("optional"), "auto", true, 120_000)).toBe(true);
  });

  it("offers every call as a task by the mode alone where the server decides (the 2026-07-28 extension)", () => {
    expect(runsAsTask(undefined, "always", true, 1000, true)).toBe(true);
    expect(runsAsTask(undefined, "auto", true, 1000, true)).toBe(false);
    expect(runsAsTask(undefined, "auto", true, 120_000, true)).toBe(true);
    expect(runsAsTask(undefined, "always", false, 1000, true)).toBe(false);
  });
});

it("keeps a tool's execution and _meta in the registry", async () => {
  const { hub: h } = await connect();
  expect(h.tools().find((tool) => tool.name === "with-meta")?._meta).toEqual({ "example.com/ui": "card" });
  expect(h.tools().find((tool) => tool.name === "stuck")?.execution).toEqual({ taskSupport: "required" });
}, 30_000);

it("announces a server's notifications/elicitation/complete after an accepted URL flow", async () => {
  const h = await hubs.connect({ tasks: fixture("task-server.mjs") }, { onUrlElicitation: async () => ({ action: "accept" }) });
  const completed: HubEvent[] = [];
  h.on((event) => (event.type === "elicitation-complete" ? completed.push(event) : undefined));
  expect((await h.callTool("url-flow", {})).content).toEqual([{ type: "text", text: "accept" }]);
  await waitUntil(() => completed.length > 0, 5000, "the completion notice");
  expect(completed).toEqual([{ type: "elicitation-complete", server: "tasks", elicitationId: "flow-1" }]);
}, 30_000);

describe("a 2025-11-25 task's result keeps the checks of a plain call", () => {
  it("holds its structured result to the tool's outputSchema, with the error a plain call gets", async () => {
    const { hub, statuses } = await connect();
    expect(hub.servers()[0]).toMatchObject({ status: "connected", protocolVersion: "2025-11-25" });
    expect((await hub.callTool("typed-task", { count: 3 })).structuredContent).toEqual({ count: 3 });
    await expect(hub.callTool("typed-task", { count: 3, bad: true })).rejects.toThrow(
      /tools\/call typed-task on server "tasks" failed: .*Structured content does not match the tool's output schema/,
    );
    // Both ran as tasks, and finished: the second was refused for its result.
    expect(statuses.filter((status) => status === "completed")).toHaveLength(2);
  }, 30_000);
});

describe("a task that never moves", () => {
  it("gives up after the timeout without a change of status, in one line, and cancels it on the server", async () => {
    const { hub: h } = await connect();
    let taskId = "";
    h.on((event) => (event.type === "task-status" ? (taskId = event.task.taskId) : undefined));
    await expect(h.callTool("stuck", {}, { timeoutMs: 300 })).rejects.toMatchObject({
      code: "timeout",
      message: expect.stringMatching(/^tools\/call stuck on server "tasks" timed out after 300 ms/),
    });
    expect((await h.task(taskId)).status).toBe("cancelled");
  }, 30_000);
});
