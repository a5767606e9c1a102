import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../src/llm/types.js";
import { callsFromGemma, gemmaValue } from "../../src/toolcall/gemma-calls.js";
import { parseToolCalls } from "../../src/toolcall/parser.js";

const Q = '<|"|>';

describe("Gemma's call notation", () => {
  it("writes back any JSON value in a form it reads as the same value", () => {
    const args = { "a key": "x, {y}: [z]", n: -1.5e3, ok: false, none: null, list: [1, "two", { three: [] }], "<k>": "v" };
    expect(callsFromGemma(`call:f${gemmaValue(args, Q)}`, Q)).toEqual([{ name: "f", arguments: args }]);
    expect(callsFromGemma(`call:f${gemmaValue(args, "<escape>")}`, "<escape>")).toEqual([{ name: "f", arguments: args }]);
  });

  it("refuses nesting deeper than its bound as a call, and gives the text back", () => {
    const deep = `<|tool_call>call:f{${"a:{".repeat(5000)}${"}".repeat(5001)}<tool_call|>`;
    const result = parseToolCalls(deep, { tools: ["f"] });
    expect(result.calls).toEqual([]);
    expect(result.content).toBe(deep);
  });

  it("is not a call when the body is prose or a call is followed by prose", () => {
    expect(callsFromGemma("call the weather tool", Q)).toBeUndefined();
    expect(callsFromGemma(`call:f{a:1} and then more`, Q)).toBeUndefined();
  });
});

describe("DeepSeek DSML values", () => {
  const tools: ToolDefinition[] = [
    { name: "score", description: "", parameters: { type: "object", properties: { value: { type: "integer" }, label: { type: "string" } } } },
  ];

  it("types a value by the tool's schema over its string attribute (as vLLM does)", () => {
    const text =
      '<｜DSML｜function_calls>\n<｜DSML｜invoke name="score">\n<｜DSML｜parameter name="value" string="true">42</｜DSML｜parameter>\n' +
      '<｜DSML｜parameter name="label" string="false">7</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>';
    expect(parseToolCalls(text, { tools }).calls).toEqual([{ name: "score", arguments: { value: 42, label: "7" } }]);
  });
});
