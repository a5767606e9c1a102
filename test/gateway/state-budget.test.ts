import { describe, expect, it } from "vitest";
import { BudgetIndex } from "../../src/gateway/state/budget.js";
import { NotStoredError } from "../../src/gateway/state/state.js";

/** The embedded store's budget, its clock given: expiry is tested without waiting. */

describe("the store's budget", () => {
  it("makes room by forgetting what has expired before it refuses, and says which records went", () => {
    const index = new BudgetIndex({ maxBytes: 100, maxBytesPerKey: 60 });
    expect(index.admit("resp_a", { owner: "key-1", bytes: 50, expiresAt: 1000 }, 0)).toEqual([]);
    expect(() => index.admit("resp_b", { owner: "key-1", bytes: 50, expiresAt: 3000 }, 999)).toThrow(NotStoredError);
    expect(index.admit("resp_b", { owner: "key-1", bytes: 50, expiresAt: 3000 }, 1000)).toEqual(["resp_a"]);
    expect(index.get("resp_a")).toBeUndefined();
  });

  it("counts a record stored again in place of the one it replaces", () => {
    const index = new BudgetIndex({ maxBytes: 100, maxBytesPerKey: 60 });
    index.admit("resp_a", { owner: "key-1", bytes: 50, expiresAt: 1000 }, 0);
    expect(index.admit("resp_a", { owner: "key-1", bytes: 55, expiresAt: 2000 }, 0)).toEqual([]);
    expect(() => index.admit("resp_b", { owner: "key-1", bytes: 10, expiresAt: 2000 }, 0)).toThrow("this key's share of the store");
  });
});
