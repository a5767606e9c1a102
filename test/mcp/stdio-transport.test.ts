import { afterEach, describe, expect, it, vi } from "vitest";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/core";
import { Hub } from "../../src/mcp/hub.js";
import { ProcessGroupTransport } from "../../src/mcp/stdio-transport.js";
import { expectNoChildren, fixture } from "./processes.js";

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

describe("reading what a server writes", () => {
  it("hands over replies, error replies, requests and notifications as the message union reads them, and refuses a reply with a stray key", async () => {
    const lines = [
      { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "hi" }], _meta: { note: 1 } } },
      { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "no such method" } },
      { jsonrpc: "2.0", id: 3, method: "roots/list" },
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } },
      { jsonrpc: "2.0", id: 4, result: {}, stray: true },
    ];
    const text = lines.map((line) => JSON.stringify(line)).join("\n") + "\n";
    const script = `process.stdout.write(${JSON.stringify(text)}); process.stdin.resume(); process.stdin.on("end", () => process.exit(0));`;
    const transport = new ProcessGroupTransport({ command: process.execPath, args: ["-e", script] });
    const messages: unknown[] = [];
    const errors: Error[] = [];
    transport.onmessage = (message) => messages.push(message);
    transport.onerror = (error) => errors.push(error);
    await transport.start();
    await vi.waitFor(() => expect(messages.length + errors.length).toBe(lines.length));
    await transport.close();
    expect(messages).toEqual(lines.slice(0, 4).map((line) => JSONRPCMessageSchema.parse(line)));
    expect(errors).toHaveLength(1);
    expect(JSONRPCMessageSchema.safeParse(lines[4]).success).toBe(false);
  });
});
