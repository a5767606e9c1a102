import { describe, expect, it } from "vitest";
import { toGrammarSchema } from "../../src/llm/schema/grammar.js";

const ANY = { oneOf: [{ type: ["string", "number", "boolean", "null"] }, { type: "object", additionalProperties: true }, { type: "array" }] };

describe("a tool's parameters as node-llama-cpp's grammar schema", () => {
  it("keeps types, constants, enums, lengths and descriptions, and closes objects that list their properties", () => {
    expect(
      toGrammarSchema({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: {
          name: { type: "string", minLength: 1, maxLength: 40, description: "Who" },
          unit: { enum: ["c", "f"] },
          kind: { const: "weather" },
          when: { type: "string", format: "date" },
          days: { type: "array", items: { type: "integer" }, maxItems: 7 },
        },
        required: ["name"],
      }),
    ).toEqual({
      type: "object",
      properties: {
        name: { type: "string", minLength: 1, maxLength: 40, description: "Who" },
        unit: { enum: ["c", "f"] },
        kind: { const: "weather" },
        when: { type: "string", format: "date" },
        days: { type: "array", items: { type: "integer" }, maxItems: 7 },
      },
      additionalProperties: false,
    });
  });

  it("writes anyOf and type lists as oneOf, and inlines references", () => {
    expect(
      toGrammarSchema({
        type: "object",
        properties: { limit: { type: ["integer", "null"] }, where: { anyOf: [{ $ref: "#/$defs/place" }, { type: "string" }] } },
        $defs: { place: { type: "object", properties: { lat: { type: "number" } } } },
      }),
    ).toEqual({
      type: "object",
      properties: {
        limit: { oneOf: [{ type: "integer" }, { type: "null" }] },
        where: { oneOf: [{ type: "object", properties: { lat: { type: "number" } }, additionalProperties: false }, { type: "string" }] },
      },
      additionalProperties: false,
    });
  });

  it("lets a value the subset cannot describe be any JSON, and an object without properties hold any keys", () => {
    expect(toGrammarSchema({ type: "object", properties: { data: {}, both: { allOf: [{ type: "string" }] }, bag: { type: "object" } } })).toEqual({
      type: "object",
      properties: { data: ANY, both: ANY, bag: { type: "object", properties: {}, additionalProperties: true } },
      additionalProperties: false,
    });
  });
});
