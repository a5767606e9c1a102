import { afterEach, describe, expect, it, vi } from "vitest";
import { Hub } from "../../src/mcp/hub.js";
import { ProcessGroupTransport } from "../../src/mcp/transport/stdio.js";
import { expectNoChildren, fixture, waitUntil } from "./processes.js";

/**
 * The timers of `ms` started while `work` runs that were never cleared: each would keep a
 * command alive for its whole length after its work was done.
 */
async function timersLeft(ms: number, work: () => Promise<void>): Promise<number> {
  const set = vi.spyOn(globalThis, "setTimeout");
  const clear = vi.spyOn(globalThis, "clearTimeout");
  try {
    await work();
    const cleared = new Set(clear.mock.calls.map(([timer]) => timer));
    return set.mock.calls.filter(([, delay], i) => delay === ms && !cleared.has(set.mock.results[i]?.value)).length;
  } finally {
    set.mockRestore();
    clear.mockRestore();
  }
}

afterEach(async () => {
  await expectNoChildren();
});

describe("closing a stdio server leaves no timer behind", () => {
  it("clears the grace timer once a server exits at the end of its stdin", async () => {
    const left = await timersLeft(600_000, async () => {
      const transport = new ProcessGroupTransport({ ...fixture("toy-server.mjs"), graceMs: 600_000 });
      await transport.start();
      await transport.close();
    });
    expect(left).toBe(0);
  });

  it("clears the grace timers of a server that needed SIGTERM", async () => {
    const left = await timersLeft(300, async () => {
      // Ignores the end of its stdin; SIGTERM ends it.
      const transport = new ProcessGroupTransport({ command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"], graceMs: 300 });
      await transport.start();
      await transport.close();
    });
    expect(left).toBe(0);
  });

  it("clears every grace timer when a hub of two servers closes after a call", async () => {
    const left = await timersLeft(2000, async () => {
      const hub = await Hub.connect({ a: fixture("toy-server.mjs"), b: fixture("toy-server.mjs") }, { stderrLogFile: "/dev/null" });
      expect(hub.servers().map((state) => state.status)).toEqual(["connected", "connected"]);
      expect((await hub.callTool("a__pid", {})).isError).toBeFalsy();
      await hub.close();
    });
    expect(left).toBe(0);
  });
});

describe("what a server writes on stdout", () => {
  it("hands on JSON-RPC objects and reports every other line as not JSON-RPC, the server living on", async () => {
    const lines = ['{"status":"ok"}', "[1,2]", '"text"', "null", '{"jsonrpc":"1.0","method":"x"}', '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}'];
    const script = `process.stdout.write(${JSON.stringify(lines.join("\n") + "\n")}); process.stdin.resume();`;
    const transport = new ProcessGroupTransport({ command: process.execPath, args: ["-e", script], graceMs: 300 });
    const messages: unknown[] = [];
    const errors: Error[] = [];
    transport.onmessage = (message) => messages.push(message);
    transport.onerror = (error) => errors.push(error);
    await transport.start();
    try {
      await waitUntil(() => messages.length + errors.length === lines.length, 10_000, "every line");
      expect(messages).toEqual([JSON.parse(lines[5] as string)]);
      expect(errors.map((error) => [error.name, error.message])).toEqual(
        lines.slice(0, 5).map((line) => ["SyntaxError", `not a JSON-RPC 2.0 message: ${line}`]),
      );
    } finally {
      await transport.close();
    }
  });
});
