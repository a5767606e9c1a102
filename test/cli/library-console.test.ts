import { afterEach, describe, expect, it } from "vitest";
import { libraryLine, routeLibraryConsole, sendLibraryLinesTo } from "../../src/cli/library-console.js";

/**
 * Libraries (the MCP SDK's OAuth retries, its tool-header checks) warn through `console`, quoting
 * what a server sent. The CLI routes every console method: one cleaned, bounded line, to stderr or
 * (while the chat's screen is up) to the chat's notices.
 */

const saved = { ...console };
let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  Object.assign(console, saved);
});

describe("library console lines", () => {
  it("are cleaned of terminal controls and kept on one line", () => {
    const line = libraryLine(["[mcp-sdk] excluding tool '%s'", "evil\u001b]0;pwned\u0007\u001b[2J", "\nsecond line"]);
    expect(line).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/);
    expect(line).toBe("[mcp-sdk] excluding tool 'evil' second line");
  });

  it("are cut at a bound, saying how much was left out", () => {
    const line = libraryLine(["x".repeat(5_000)]);
    expect(line.length).toBeLessThan(1_100);
    expect(line).toMatch(/… \(4000 more characters\)$/);
  });

  it("go, from every console method, to the sink the chat sets, and back to stderr after", () => {
    routeLibraryConsole();
    const seen: string[] = [];
    restore = sendLibraryLinesTo((line) => seen.push(line));
    console.warn("[mcp-sdk] Could not refresh OAuth tokens; Cause: %s", "\u001b[31mbad\u001b[0m");
    console.log("log");
    console.error(new Error("boom").message);
    expect(seen).toEqual(["[mcp-sdk] Could not refresh OAuth tokens; Cause: bad", "log", "boom"]);
    restore();
    restore = undefined;
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => written.push(chunk) > 0) as typeof process.stderr.write;
    try {
      console.info("after");
    } finally {
      process.stderr.write = write;
    }
    expect(written).toEqual(["after\n"]);
    expect(seen).toHaveLength(3);
  });
});
