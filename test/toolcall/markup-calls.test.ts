import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../src/llm/types.js";
import { callsFromGemma, gemmaValue } from "../../src/toolcall/gemma-calls.js";
import { createToolCallParser, parseToolCalls, type ToolCallParserEvent } from "../../src/toolcall/parser.js";
import { randomChunks } from "./random-chunks.js";

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

describe("MiniMax M3 element arguments", () => {
  const NS = "]<]minimax[>[";

  it("reads nesting deeper than its bound as text, not as elements, and never recurses without end", () => {
    const deep = `${"<a>".repeat(5000)}x${"</a>".repeat(5000)}`;
    const result = parseToolCalls(`<tool_call>\n<invoke name="f"><v>${deep}</v></invoke>\n</tool_call>`, { tools: ["f"] });
    expect(result.calls).toEqual([{ name: "f", arguments: { v: deep } }]);
  });

  it("keeps markup in a string parameter as its text", () => {
    const tools: ToolDefinition[] = [{ name: "note", description: "", parameters: { type: "object", properties: { body: { type: "string" } } } }];
    const text = `${NS}<tool_call>\n${NS}<invoke name="note">${NS}<body><b>bold</b> text${NS}</body>${NS}</invoke>\n${NS}</tool_call>`;
    expect(parseToolCalls(text, { tools }).calls).toEqual([{ name: "note", arguments: { body: "<b>bold</b> text" } }]);
  });

  it("gives an unclosed parameter back as text", () => {
    const text = `<tool_call>\n<invoke name="f"><v>1</invoke>\n</tool_call>`;
    expect(parseToolCalls(text, { tools: ["f"] })).toMatchObject({ calls: [], content: text });
  });

  it("drops a stray namespace token and leaves every other ] in prose alone", () => {
    const prose = "a[0]] and ]] then ]<] and [x]";
    expect(parseToolCalls(`${prose}${NS}`).content).toBe(prose);
  });
});

describe("Kimi K3 XTML", () => {
  it("gives a tools channel with one malformed call back whole as text, so nothing is lost", () => {
    const text =
      '<|open|>tools<|sep|><|open|>call tool="say" index="1"<|sep|><|close|>call<|sep|>' +
      '<|open|>call index="2"<|sep|><|close|>call<|sep|><|close|>tools<|sep|>';
    expect(parseToolCalls(text, { tools: ["say"] })).toMatchObject({ calls: [], content: text });
  });

  it("unescapes attribute values and types an untyped argument by the schema", () => {
    const tools: ToolDefinition[] = [{ name: "score", description: "", parameters: { type: "object", properties: { value: { type: "integer" } } } }];
    const text =
      '<|open|>tools<|sep|><|open|>call tool="score" index="1"<|sep|><|open|>argument key="value"<|sep|>42<|close|>argument<|sep|>' +
      '<|open|>argument key="a&amp;&quot;b" type="string"<|sep|>x<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>';
    expect(parseToolCalls(text, { tools }).calls).toEqual([{ name: "score", arguments: { value: 42, 'a&"b': "x" } }]);
  });
});

describe("values typed by the tool's schema", () => {
  const tools: ToolDefinition[] = [
    {
      name: "set_alarm",
      description: "",
      parameters: { type: "object", properties: { loud: { type: "boolean" }, minutes: { type: "integer" }, label: { type: "string" } } },
    },
  ];
  const calls = (deltas: string[]): ToolCallParserEvent[] => {
    const parser = createToolCallParser({ tools });
    return [...deltas.flatMap((d) => parser.push(d)), ...parser.end()].filter((e) => e.type === "tool-call");
  };

  it("reads a Python-style True and a bare number as the boolean and integer the schema says, whole, per character and in chunks", () => {
    // Gemma 4 writes bare words for non-strings, so a model used to Python writes True there (a constructed case).
    const text = `<|tool_call>call:set_alarm{loud:True,minutes:15,label:<|"|>True<|"|>}<tool_call|>`;
    const expected = [{ type: "tool-call", name: "set_alarm", arguments: { loud: true, minutes: 15, label: "True" } }];
    expect(calls([text])).toEqual(expected);
    expect(calls([...text])).toEqual(expected);
    for (let seed = 1; seed <= 10; seed++) expect(calls(randomChunks(text, seed, 7))).toEqual(expected);
  });

  it("keeps text that is not of the schema's type as it came", () => {
    const text = '<tool_call>{"name": "set_alarm", "arguments": {"loud": "maybe", "minutes": "1.5"}}</tool_call>';
    expect(parseToolCalls(text, { tools }).calls).toEqual([{ name: "set_alarm", arguments: { loud: "maybe", minutes: "1.5" } }]);
  });
});
