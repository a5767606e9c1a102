import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { keepArrivalOrder } from "../../src/mcp/arrival-order.js";

/**
 * keepArrivalOrder on a bare transport, its receiver standing in for the SDK's: a notification's handler runs a
 * microtask after it arrives (as the SDK's does), a response's at once.
 */
function ordered(): { deliver: (message: JSONRPCMessage) => void; seen: string[]; transport: Transport } {
  const transport: Transport = { start: async () => undefined, send: async () => undefined, close: async () => undefined };
  keepArrivalOrder(transport, (message) => message);
  const seen: string[] = [];
  transport.onmessage = (message) => {
    if ("method" in message) {
      if (message.method === "throws") throw new Error("the receiver failed");
      void Promise.resolve().then(() => seen.push(message.method));
    } else seen.push(`response ${String(message.id)}`);
  };
  return { deliver: (message) => transport.onmessage?.(message), seen, transport };
}

const response = (id: number): JSONRPCMessage => ({ jsonrpc: "2.0", id, result: {} });
const progress: JSONRPCMessage = { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } };

describe("arrival order", () => {
  it("hands over a response with nothing before it still waiting at once", () => {
    const { deliver, seen } = ordered();
    deliver(response(1));
    expect(seen).toEqual(["response 1"]);
  });

  it("hands over a response after the handler of a notification that came just before it", async () => {
    const { deliver, seen } = ordered();
    deliver(progress);
    deliver(response(1));
    expect(seen).toEqual([]);
    await Promise.resolve();
    await Promise.resolve();
    expect(seen).toEqual(["notifications/progress", "response 1"]);
    // Once that handler has run, the next response goes at once again.
    deliver(response(2));
    expect(seen.at(-1)).toBe("response 2");
  });

  it("goes back to handing responses over at once after a receiver that threw on a notification", async () => {
    const { deliver, seen } = ordered();
    expect(() => deliver({ jsonrpc: "2.0", method: "throws" })).toThrow("the receiver failed");
    await Promise.resolve();
    deliver(response(3));
    expect(seen).toEqual(["response 3"]);
  });
});
