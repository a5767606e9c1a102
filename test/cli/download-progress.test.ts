import { describe, expect, it } from "vitest";
import { downloadProgress } from "../../src/cli/download-progress.js";

/** A stand-in for process.stderr that keeps what is written. */
function terminal(isTTY: boolean): NodeJS.WriteStream & { written: string[] } {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) > 0 } as unknown as NodeJS.WriteStream & { written: string[] };
}

describe("the download progress bar", () => {
  it("is not drawn when stderr is not a terminal", () => {
    expect(downloadProgress(terminal(false))).toBeUndefined();
  });

  it("draws the share done on one line, at most every 100 ms, and clears it at the end", () => {
    const stream = terminal(true);
    const progress = downloadProgress(stream)!;
    progress(1024 * 1024, 4 * 1024 * 1024);
    progress(2 * 1024 * 1024, 4 * 1024 * 1024);
    progress(4 * 1024 * 1024, 4 * 1024 * 1024);
    expect(stream.written[0]).toBe(`\r\x1b[Kdownloading the model ${"█".repeat(6)}${"░".repeat(18)} 1.0 / 4.0 MiB 25%`);
    expect(stream.written).toHaveLength(3);
    expect(stream.written[1]).toContain("4.0 / 4.0 MiB 100%");
    expect(stream.written[2]).toBe("\r\x1b[K");
  });
});
