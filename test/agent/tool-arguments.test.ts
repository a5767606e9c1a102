import { describe, expect, it } from "vitest";
import { parseToolArguments, validateToolArguments } from "../../src/agent/tool-arguments.js";

describe("parseToolArguments", () => {
  it("reads an empty argument text as no arguments", () => {
    expect(parseToolArguments("  ")).toEqual({ ok: true, arguments: {} });
  });

  it("refuses JSON that is not an object", () => {
    expect(parseToolArguments("[1, 2]")).toMatchObject({ ok: false, outcome: "invalid-arguments", message: expect.stringContaining("an array") });
  });

  it("says where broken JSON broke", () => {
    const check = parseToolArguments('{"a": 1 "b": 2}');
    expect(check.ok).toBe(false);
    expect(!check.ok && check.message).toMatch(/at character 8: \{"a": 1 ⟨here⟩"b": 2\}/);
  });

  it.each([
    ["a missing value", '{"a": }', '{"a": ⟨here⟩}', "expected a value"],
    ["a doubled comma", '{"a": 1,, "b": 2}', '{"a": 1,⟨here⟩, "b": 2}', "expected a property name"],
  ])("puts the marker where the JSON broke for %s, though the runtime's message names no position", (_name, raw, near, reason) => {
    const check = parseToolArguments(raw);
    expect(!check.ok && check.message).toContain(`: ${near}.`);
    expect(!check.ok && check.message).toContain(reason);
  });
});

describe("validateToolArguments", () => {
  it("names nested arguments by their path", () => {
    const schema = { type: "object", properties: { location: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, tags: { type: "array", items: { type: "string" } } } };
    const check = validateToolArguments("t", schema, { location: {}, tags: ["a", 3] });
    expect(!check.ok && check.message).toContain('- missing required argument "location.city"');
    expect(!check.ok && check.message).toContain('- argument "tags[1]" must be string');
  });

  it("reads draft-07 and 2020-12 schemas", () => {
    const base = { type: "object", properties: { n: { type: "integer" } } };
    expect(validateToolArguments("t", { $schema: "http://json-schema.org/draft-07/schema#", ...base }, { n: 1.5 }).ok).toBe(false);
    expect(validateToolArguments("t", { $schema: "https://json-schema.org/draft/2020-12/schema", ...base }, { n: 1.5 }).ok).toBe(false);
    expect(validateToolArguments("t", { $schema: "https://json-schema.org/draft/2020-12/schema", ...base }, { n: 2 }).ok).toBe(true);
  });

  it("lets the call through when the schema cannot be compiled, leaving validation to the server", () => {
    expect(validateToolArguments("t", { type: "object", properties: { a: { $ref: "#/$defs/missing" } } }, { a: 1 }).ok).toBe(true);
  });

  it("ignores unknown formats instead of failing", () => {
    expect(validateToolArguments("t", { type: "object", properties: { u: { type: "string", format: "uri" } } }, { u: "not a uri" }).ok).toBe(true);
  });
});
