import { describe, expect, it } from "vitest";
import { SessionEventStore } from "../../src/servers/event-store.js";

const message = (id: number) => ({ jsonrpc: "2.0" as const, id, result: {} });

describe("SessionEventStore", () => {
  it("replays the events of the same stream after the last one the client saw, priming events left out", async () => {
    const store = new SessionEventStore();
    const priming = await store.storeEvent("a", {} as never);
    await store.storeEvent("b", message(1));
    const second = await store.storeEvent("a", message(2));
    await store.storeEvent("a", message(3));
    const sent: [string, unknown][] = [];
    expect(await store.replayEventsAfter(priming, { send: async (id, m) => void sent.push([id, m]) })).toBe("a");
    expect(sent.map(([, m]) => m)).toEqual([message(2), message(3)]);
    expect(sent[0]?.[0]).toBe(second);
  });

  it("keeps at most 1000 events, forgetting the oldest, and refuses an id it no longer has", async () => {
    const store = new SessionEventStore();
    const first = await store.storeEvent("a", message(0));
    for (let i = 1; i <= 1000; i++) await store.storeEvent("a", message(i));
    expect(await store.getStreamIdForEventId(first)).toBeUndefined();
    await expect(store.replayEventsAfter(first, { send: async () => undefined })).rejects.toThrow(/unknown or expired event id/);
  });
});
