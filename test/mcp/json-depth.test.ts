import { describe, expect, it } from "vitest";
import { JsonDepthScan } from "../../src/mcp/json-depth.js";

const bytes = (text: string) => Buffer.from(text, "utf8");

describe("the depth of JSON read in pieces", () => {
  it("counts brackets across pieces and stops at the piece that goes past the limit", () => {
    const scan = new JsonDepthScan(3);
    expect(scan.deeperAfter(bytes('{"a":['))).toBe(false);
    expect(scan.deeperAfter(bytes("[]"))).toBe(false);
    expect(scan.deeperAfter(bytes("[["))).toBe(true);
  });

  it("does not count brackets in a string that runs from one piece into the next, an escaped quote split between them included", () => {
    const scan = new JsonDepthScan(1);
    expect(scan.deeperAfter(bytes('{"a":"[[\\'))).toBe(false);
    expect(scan.deeperAfter(bytes('"[[[['))).toBe(false);
    expect(scan.deeperAfter(bytes('"}'))).toBe(false);
    expect(scan.deeperAfter(bytes("[{"))).toBe(true);
  });
});
