import { getEventListeners } from "node:events";
import type { Client, Task } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runToolTask, TaskNotices, type ToolTaskProtocol } from "../../src/mcp/tasks/tasks.js";

afterEach(() => void vi.useRealTimers());

/** A server's task that ends `ms` after it was made and sends no status notifications: the caller can only poll. */
function silentTask(ms: number, taskId = "t1"): { protocol: ToolTaskProtocol; polls: number[]; cancelled: number[] } {
  const made = Date.now();
  const polls: number[] = [];
  const cancelled: number[] = [];
  const task = (status: Task["status"]): Task => ({ taskId, status, ttl: 60_000, createdAt: new Date(made).toISOString(), lastUpdatedAt: new Date().toISOString(), pollInterval: 1000 });
  const protocol: ToolTaskProtocol = {
    serverDirected: false,
    supported: () => true,
    create: async () => task("working"),
    get: async () => {
      polls.push(Date.now() - made);
      return task(Date.now() - made >= ms ? "completed" : "working");
    },
    result: async () => ({ content: [{ type: "text", text: "done" }] }),
    cancel: async () => void cancelled.push(Date.now() - made),
    list: async () => [],
  };
  return { protocol, polls, cancelled };
}

/** Two such tasks of one server, the second made `gapMs` after the first: when each was polled, from its making. */
async function twoTasks(ms: number, gapMs: number): Promise<[number[], number[]]> {
  vi.useFakeTimers();
  const options = { requestOptions: { timeout: 60_000 }, notices: new TaskNotices() };
  const first = silentTask(ms, "t1");
  const firstDone = runToolTask(first.protocol, {} as Client, "slow", {}, options);
  await vi.advanceTimersByTimeAsync(gapMs);
  const second = silentTask(ms, "t2");
  const secondDone = runToolTask(second.protocol, {} as Client, "slow", {}, options);
  await vi.advanceTimersByTimeAsync(2 * ms + 1000);
  await Promise.all([firstDone, secondDone]);
  return [first.polls, second.polls];
}

describe("polling a task whose server sends no status notifications", () => {
  it("asks about a 5 s task at pollInterval 1000 at most 9 times, each wait twice the last until the interval", async () => {
    vi.useFakeTimers();
    const { protocol, polls } = silentTask(5000);
    const result = runToolTask(protocol, {} as Client, "slow", {}, { requestOptions: { timeout: 60_000 } });
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(result).resolves.toEqual({ content: [{ type: "text", text: "done" }] });
    expect(polls).toEqual([50, 150, 350, 750, 1550, 2550, 3550, 4550, 5550]);
  });

  it("sees a short task end within its age so far", async () => {
    vi.useFakeTimers();
    const { protocol, polls } = silentTask(120);
    const result = runToolTask(protocol, {} as Client, "quick", {}, { requestOptions: { timeout: 60_000 } });
    await vi.advanceTimersByTimeAsync(1000);
    await result;
    expect(polls).toEqual([50, 150]);
  });

  it("ends the wait between polls at once when the caller aborts, cancels the task, and leaves no listener on the signal", async () => {
    vi.useFakeTimers();
    const { protocol, polls, cancelled } = silentTask(5000);
    const controller = new AbortController();
    const result = runToolTask(protocol, {} as Client, "slow", {}, { requestOptions: { timeout: 60_000, signal: controller.signal } });
    const settled = expect(result).rejects.toThrow("the user pressed Ctrl-C");
    await vi.advanceTimersByTimeAsync(1000);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    controller.abort(new Error("the user pressed Ctrl-C"));
    await vi.advanceTimersByTimeAsync(0);
    await settled;
    expect(polls).toEqual([50, 150, 350, 750]);
    expect(cancelled).toEqual([1000]);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("takes no listener of its own on the caller's signal per poll: one for the whole task, gone when it ends", async () => {
    vi.useFakeTimers();
    const { protocol } = silentTask(5000);
    const signal = new AbortController().signal;
    const added = vi.spyOn(signal, "addEventListener");
    const result = runToolTask(protocol, {} as Client, "slow", {}, { requestOptions: { timeout: 60_000, signal } });
    await vi.advanceTimersByTimeAsync(10_000);
    await result;
    expect(added).toHaveBeenCalledTimes(1);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("polls the tasks of one server in step: a wait may end up to a quarter of its length late, never early", async () => {
    // The first task's first wait (50 ms) ends 10 ms late, with the second's; from then on they are polled together.
    expect(await twoTasks(5000, 10)).toEqual([
      [60, 160, 360, 760, 1560, 2560, 3560, 4560, 5560],
      [50, 150, 350, 750, 1550, 2550, 3550, 4550, 5550],
    ]);
  });

  it("holds a wait back for another by at most a quarter of its length", async () => {
    // 20 ms apart, the first waits of 50 ms (each may end 12.5 ms late) keep their own times; the waits of 100 ms
    // after them may end 25 ms late, so the first task's ends 20 ms late, with the second's.
    expect(await twoTasks(120, 20)).toEqual([
      [50, 170],
      [50, 150],
    ]);
  });
});
