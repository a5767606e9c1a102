import { describe, expect, it } from "vitest";
import type { ServerState } from "../../../src/mcp/types.js";
import { startupStatus } from "../../../src/cli/render/startup-status.js";

/** Server start-up, shown server by server on a terminal's stderr. */

function stream(isTTY: boolean, columns = 80) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, columns, write: (text: string) => writes.push(text) } as unknown as NodeJS.WriteStream };
}

const state = (name: string, status: ServerState["status"]): ServerState => ({ name, status, transport: "stdio", toolCount: 0, resourceCount: 0, promptCount: 0, restarts: 0 });

describe("startupStatus", () => {
  it("rewrites one line as each server moves on, and clears it when none is starting", () => {
    const { writes, stream: stderr } = stream(true);
    const onEvent = startupStatus(stderr, { NO_COLOR: "1" });
    onEvent({ type: "server-status", state: state("time", "connecting") });
    onEvent({ type: "server-status", state: state("slow", "connecting") });
    onEvent({ type: "server-status", state: state("time", "connected") });
    expect(writes.at(-1)).toBe("\r\x1b[2Kservers: time ✓  slow …");
    onEvent({ type: "server-status", state: state("slow", "failed") });
    expect(writes.at(-1)).toBe("\r\x1b[2K");
    // A later reconnection is not start-up.
    onEvent({ type: "server-status", state: state("slow", "connecting") });
    expect(writes).toHaveLength(4);
  });

  it("counts instead of naming when the names would not fit the terminal", () => {
    const { writes, stream: stderr } = stream(true, 30);
    const onEvent = startupStatus(stderr, { NO_COLOR: "1" });
    for (const name of ["filesystem", "github", "postgres"]) onEvent({ type: "server-status", state: state(name, "connecting") });
    onEvent({ type: "server-status", state: state("github", "connected") });
    expect(writes.at(-1)).toBe("\r\x1b[2Kservers: 1/3 started");
  });

  it("writes nothing when stderr is not a terminal", () => {
    const { writes, stream: stderr } = stream(false);
    startupStatus(stderr, {})({ type: "server-status", state: state("time", "connecting") });
    expect(writes).toEqual([]);
  });
});
