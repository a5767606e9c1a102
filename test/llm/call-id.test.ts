import { describe, expect, it } from "vitest";
import { newCallId } from "../../src/llm/call-id.js";

describe("newCallId", () => {
  it("makes OpenAI-shaped ids that do not repeat", () => {
    const ids = Array.from({ length: 100 }, newCallId);
    for (const id of ids) expect(id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(100);
  });
});
