import { afterEach, describe, expect, it, vi } from "vitest";
import { RequestControl } from "../../src/llm/request-control.js";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("RequestControl", () => {
  it("restarts the idle timeout on every touch and gives up once the server stays quiet for the whole timeout", () => {
    vi.useFakeTimers();
    const control = new RequestControl("http://127.0.0.1:9/v1", 100);
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(80);
      control.touch();
    }
    expect(control.signal.aborted).toBe(false);
    vi.advanceTimersByTime(99);
    expect(control.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(control.signal.aborted).toBe(true);
    expect(control.stopReason()?.code).toBe("timeout");
    control.dispose();
  });

  it("makes one timer per request, however many pieces of stream arrive", () => {
    const setTimer = vi.spyOn(globalThis, "setTimeout");
    const control = new RequestControl("http://127.0.0.1:9/v1", 1000);
    for (let i = 0; i < 50; i++) control.touch();
    control.dispose();
    expect(setTimer).toHaveBeenCalledTimes(1);
  });

  it("stops counting once disposed, touched or not", async () => {
    // Real timers: Node's refresh() leaves a cleared timer cleared, the fake clock's does not.
    const control = new RequestControl("http://127.0.0.1:9/v1", 10);
    control.dispose();
    control.touch();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(control.signal.aborted).toBe(false);
    expect(control.stopReason()).toBeUndefined();
  });
});
