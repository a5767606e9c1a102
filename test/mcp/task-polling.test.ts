import { getEventListeners } from "node:events";
import type { Client, Task } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runToolTask, type ToolTaskProtocol } from "../../src/mcp/tasks.js";

afterEach(() => void vi.useRealTimers());

/** A server's task that ends `ms` after it was made and sends no status notifications: the caller can only poll. */
function silentTask(ms: number): { protocol: ToolTaskProtocol; polls: number[]; cancelled: number[] } {
  const made = Date.now();
  const polls: number[] = [];
  const cancelled: number[] = [];
  const task = (status: Task["status"]): Task => ({ taskId: "t1", status, ttl: 60_000, createdAt: new Date(made).toISOString(), lastUpdatedAt: new Date().toISOString(), pollInterval: 1000 });
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
});
