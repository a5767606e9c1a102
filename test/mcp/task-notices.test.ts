import { Client } from "@modelcontextprotocol/client";
import type { Task } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TaskNotices } from "../../src/mcp/tasks/tasks.js";
import { hubPerTest } from "./hub-per-test.js";
import { fixture } from "./processes.js";

const hubs = hubPerTest("toolbridge-task-notices-");

afterEach(() => vi.restoreAllMocks());

const task = (taskId: string, status: Task["status"] = "completed"): Task =>
  ({ taskId, status, ttl: 60_000, createdAt: "2026-01-01T00:00:00Z", lastUpdatedAt: "2026-01-01T00:00:00Z" }) as Task;

describe("task status notifications", () => {
  it("end the wait between polls: a server that sends them is not polled while its task runs", async () => {
    const hub = await hubs.connect({ tasks: fixture("task-server.mjs") }, { tasks: "always" });
    const gets = vi.spyOn(Client.prototype, "request");
    const polls = (): number => gets.mock.calls.filter(([request]) => request.method === "tasks/get").length;
    // The first call is polled (nothing says yet that the server notifies); its completion arrives as a notice too.
    expect((await hub.callTool("timed", { ms: 300, pollInterval: 5000 })).content).toHaveLength(1);
    expect(polls()).toBeGreaterThan(0);
    const before = polls();
    // Now the first poll would come after the server's pollInterval (5 s); the notice at ~300 ms ends the wait first.
    const result = await hub.callTool("timed", { ms: 300, pollInterval: 5000 });
    expect((result.content[0] as { type: string }).type).toBe("text");
    expect(polls() - before).toBe(0);
  }, 30_000);

  it("keep a bounded number of notices no wait has claimed, the newest", async () => {
    const notices = new TaskNotices();
    for (let i = 0; i < 1000; i++) notices.notify(task(`t${i}`));
    expect(await notices.wait("t999", 5000)).toMatchObject({ taskId: "t999" });
    expect(await notices.wait("t0", 1)).toBeUndefined();
  });

  it("hand a notice to the wait for its task only", async () => {
    const notices = new TaskNotices();
    const waiting = notices.wait("a", 5000);
    notices.notify(task("b", "working"));
    notices.notify(task("a", "input_required"));
    expect(await waiting).toMatchObject({ taskId: "a", status: "input_required" });
    expect(notices.sent).toBe(true);
  });
});
