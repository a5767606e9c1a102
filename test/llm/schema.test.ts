import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { toAnthropicInputSchema } from "../../src/llm/schema/anthropic.js";
import { inlineRefs } from "../../src/llm/schema/deref.js";
import { toGeminiParameters } from "../../src/llm/schema/gemini.js";
import { toOpenAIParameters } from "../../src/llm/schema/openai.js";
import type { JsonSchema } from "../../src/llm/types.js";
import { recordedTools } from "../fixtures/llm/recorded-tools.js";
import { geminiSchemaProblems } from "../support/gemini-server.js";

const realTools = [...recordedTools("server-everything"), ...recordedTools("server-filesystem")];

const recursiveTree: JsonSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: { root: { $ref: "#/$defs/Node" } },
  required: ["root"],
  $defs: {
    Node: {
      type: "object",
      description: "A tree node",
      properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
      required: ["name"],
    },
  },
};

const hard: JsonSchema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  additionalProperties: false,
  definitions: { Point: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"], additionalProperties: false } },
  properties: {
    where: { $ref: "#/definitions/Point", description: "The anchor" },
    path: { type: "array", items: { $ref: "#/definitions/Point" }, minItems: 2 },
    mode: { const: "fast" },
    level: { type: "integer", enum: [1, 2, 3] },
    color: { type: ["string", "null"], enum: ["red", "green", null] },
    note: { anyOf: [{ type: "string" }, { type: "null" }], default: null },
    target: { oneOf: [{ type: "string", format: "uri" }, { type: "object", properties: { id: { type: "integer" } } }] },
    when: { type: "string", format: "date-time" },
    email: { type: "string", format: "email" },
    both: { allOf: [{ type: "object", properties: { a: { type: "string" } }, required: ["a"] }, { properties: { b: { type: "boolean" } } }] },
    count: { type: "number", exclusiveMinimum: 0, default: 10 },
  },
  required: ["where", "mode", "ghost"],
};

describe("inlineRefs", () => {
  it("replaces references with their definitions and drops the tables", () => {
    const out = inlineRefs(hard);
    expect(JSON.stringify(out)).not.toContain("$ref");
    expect(out.definitions).toBeUndefined();
    expect((out.properties as any).where).toMatchObject({ type: "object", description: "The anchor", required: ["x", "y"] });
  });

  it("cuts a recursive reference after one expansion, leaving a finite schema", () => {
    const out = inlineRefs(recursiveTree) as any;
    const child = out.properties.root.properties.children.items;
    expect(child.$ref).toBeUndefined();
    expect(child.description).toContain("recursive reference to Node");
    expect(JSON.stringify(out).length).toBeLessThan(1000);
  });

  it("leaves data under enum, const and default alone", () => {
    const out = inlineRefs({ type: "object", properties: { a: { const: { $ref: "#/x" } } } }) as any;
    expect(out.properties.a.const).toEqual({ $ref: "#/x" });
  });
});

describe("OpenAI and Anthropic parameters", () => {
  it("give a tool without a schema, or with an empty one, an empty object schema", () => {
    for (const input of [undefined, {}, { type: "object" }]) {
      expect(toOpenAIParameters(input)).toEqual({ type: "object", properties: {} });
      expect(toAnthropicInputSchema(input)).toEqual({ type: "object", properties: {} });
    }
  });

  it("merge a root anyOf of object shapes into one object, requiring what every branch requires", () => {
    const out = toOpenAIParameters({
      anyOf: [
        { type: "object", properties: { path: { type: "string" }, recursive: { type: "boolean" } }, required: ["path", "recursive"] },
        { type: "object", properties: { path: { type: "string" }, glob: { type: "string" } }, required: ["path"] },
      ],
    });
    expect(out).toEqual({
      type: "object",
      properties: { path: { type: "string" }, recursive: { type: "boolean" }, glob: { type: "string" } },
      required: ["path"],
    });
  });

  it("keep references for servers that follow them and inline them on request", () => {
    expect(toOpenAIParameters(recursiveTree).$defs).toBeDefined();
    expect(JSON.stringify(toOpenAIParameters(recursiveTree, { inlineRefs: true }))).not.toContain("$ref");
    expect(toAnthropicInputSchema(recursiveTree).$schema).toBeUndefined();
  });

  it("keep the real server schemas compilable and their properties untouched", () => {
    const ajv = new Ajv({ strict: false, validateSchema: false, logger: false });
    for (const tool of realTools) {
      const out = toOpenAIParameters(tool.parameters);
      expect(out.type).toBe("object");
      expect(out.properties).toBeTypeOf("object");
      ajv.compile(out); // compiles
      expect(out.properties).toEqual(tool.parameters.properties ?? {});
    }
  });
});

describe("Gemini parameters", () => {
  it("converts the hard schema into the OpenAPI subset the API accepts", () => {
    const result = toGeminiParameters(hard);
    expect("parameters" in result).toBe(true);
    const p = (result as { parameters: any }).parameters;
    expect(geminiSchemaProblems(p, "parameters")).toEqual([]);
    expect(p.type).toBe("OBJECT");
    expect(p.required).toEqual(["where", "mode"]); // "ghost" named no property
    expect(p.properties.where).toMatchObject({ type: "OBJECT", description: "The anchor", required: ["x", "y"] });
    expect(p.properties.path).toMatchObject({ type: "ARRAY", minItems: 2, items: { type: "OBJECT" } });
    expect(p.properties.mode).toEqual({ type: "STRING", enum: ["fast"] });
    expect(p.properties.level.type).toBe("INTEGER");
    expect(p.properties.level.enum).toBeUndefined();
    expect(p.properties.level.description).toContain("Allowed values: 1, 2, 3");
    expect(p.properties.color).toEqual({ type: "STRING", enum: ["red", "green"], nullable: true });
    expect(p.properties.note).toMatchObject({ type: "STRING", nullable: true });
    expect(p.properties.target.anyOf).toHaveLength(2);
    expect(p.properties.target.type).toBeUndefined();
    expect(p.properties.target.anyOf[0].format).toBeUndefined();
    expect(p.properties.when.format).toBe("date-time");
    expect(p.properties.email).toEqual({ type: "STRING", description: "Format: email." });
    expect(p.properties.both).toMatchObject({ type: "OBJECT", required: ["a"], properties: { a: { type: "STRING" }, b: { type: "BOOLEAN" } } });
    expect(p.properties.count.description).toBe("Default: 10.");
  });

  it("sends no parameters for a tool without any", () => {
    expect(toGeminiParameters({})).toEqual({});
    expect(toGeminiParameters({ type: "object", properties: {}, $schema: "x" })).toEqual({});
  });

  it("goes to parametersJsonSchema, inlined and without meta keys, for what the subset cannot say", () => {
    const freeForm = { $schema: "x", type: "object", properties: { meta: { type: "object", additionalProperties: { type: "string" } } } };
    const result = toGeminiParameters(freeForm);
    expect(result).toEqual({
      parametersJsonSchema: { type: "object", properties: { meta: { type: "object", additionalProperties: { type: "string" } } } },
    });
    const recursive = toGeminiParameters(recursiveTree);
    expect("parametersJsonSchema" in recursive).toBe(true);
    expect(JSON.stringify(recursive)).not.toMatch(/\$ref|\$defs|\$schema/);
  });

  it("converts every real server-everything and server-filesystem schema into parameters the API accepts", () => {
    for (const tool of realTools) {
      const result = toGeminiParameters(tool.parameters);
      if (!("parameters" in result) || result.parameters === undefined) {
        // Only tools without arguments may send no parameters.
        expect(Object.keys(tool.parameters.properties ?? {})).toEqual([]);
        continue;
      }
      expect(geminiSchemaProblems(result.parameters, `${tool.name}.parameters`)).toEqual([]);
      expect(Object.keys(result.parameters.properties ?? {})).toEqual(Object.keys(tool.parameters.properties as object));
    }
  });
});
