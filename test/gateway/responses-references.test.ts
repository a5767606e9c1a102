import { describe, expect, it } from "vitest";
import { MAX_REFERENCED_RESPONSES, resolveReferences } from "../../src/gateway/responses/references.js";
import { itemId, newId } from "../../src/gateway/responses/wire.js";
import type { ResponseStore, StoredResponse } from "../../src/gateway/state/state.js";

/** item_reference resolution against a store in memory: the bound on the stored responses one request may make it read. */

describe("item references", () => {
  it("reads at most 1000 stored responses for one request, and says so in one line past it", async () => {
    const records = new Map<string, StoredResponse>();
    const references = Array.from({ length: MAX_REFERENCED_RESPONSES + 1 }, () => {
      const id = newId("resp");
      const item = { id: itemId("msg", id), type: "message", role: "assistant", content: "hi" };
      records.set(id, { id, owner: "alice", response: {}, input: [], output: [item] });
      return { type: "item_reference", id: item.id };
    });
    let reads = 0;
    const store: ResponseStore = {
      get: async (id) => (reads++, records.get(id)),
      put: async () => undefined,
      delete: async () => false,
    };
    const within = await resolveReferences(references.slice(0, MAX_REFERENCED_RESPONSES), [], { store, caller: "alice" });
    expect(within.items).toHaveLength(MAX_REFERENCED_RESPONSES);
    reads = 0;
    await expect(resolveReferences(references, [], { store, caller: "alice" })).rejects.toThrow("input: item references name more than 1000 stored responses; send the items themselves");
    expect(reads).toBe(MAX_REFERENCED_RESPONSES);
  });
});
