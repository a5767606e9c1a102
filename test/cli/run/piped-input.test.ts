import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readPipedInput } from "../../../src/cli/run/piped-input.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("readPipedInput", () => {
  it("says once that it waits when stdin stays open and silent, and still reads what comes later", async () => {
    vi.useFakeTimers();
    const stdin = new PassThrough();
    const onQuiet = vi.fn();
    const reading = readPipedInput(stdin, { onQuiet, quietMs: 3000 });
    await vi.advanceTimersByTimeAsync(2999);
    expect(onQuiet).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(onQuiet).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(onQuiet).toHaveBeenCalledTimes(1);
    stdin.end("late diff\n");
    await expect(reading).resolves.toBe("late diff\n");
  });

  it("says nothing when text arrives in time, however long the pipe then stays open", async () => {
    vi.useFakeTimers();
    const stdin = new PassThrough();
    const onQuiet = vi.fn();
    const reading = readPipedInput(stdin, { onQuiet, quietMs: 3000 });
    stdin.write("first part\n");
    await vi.advanceTimersByTimeAsync(10_000);
    stdin.end("second part\n");
    await expect(reading).resolves.toBe("first part\nsecond part\n");
    expect(onQuiet).not.toHaveBeenCalled();
  });

  it("refuses more than the limit in one line naming stdin and the limit", async () => {
    const stdin = new PassThrough();
    const reading = readPipedInput(stdin, { maxBytes: 1024 });
    stdin.end("x".repeat(2048));
    await expect(reading).rejects.toThrow(/^stdin: more than 1 KiB piped in/);
  });

  it("reads nothing from a terminal", async () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    await expect(readPipedInput(stdin)).resolves.toBeUndefined();
  });
});
