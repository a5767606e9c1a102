import { describe, expect, it } from "vitest";
import { PromptFormatSchema } from "../../src/config/schema.js";
import type { Message, ToolDefinition } from "../../src/llm/types.js";
import { parseToolCalls } from "../../src/toolcall/parser.js";
import { detectPromptFormat, promptFamily } from "../../src/toolcall/prompt-families.js";
import { buildToolPrompt, renderPromptMessages } from "../../src/toolcall/prompt.js";

const weather: ToolDefinition = {
  name: "get_weather",
  description: "Current weather for a city.",
  parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] },
};

describe("detectPromptFormat", () => {
  it.each([
    ["Qwen/Qwen3-32B", "hermes"],
    ["NousResearch/Hermes-3-Llama-3.1-8B", "hermes"],
    ["meta-llama/Llama-3.3-70B-Instruct", "llama"],
    ["meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama"],
    ["llama3.2:3b", "llama"],
    ["mistralai/Mistral-7B-Instruct-v0.3", "mistral"],
    ["mistralai/Mistral-Small-3.2-24B-Instruct-2506", "mistral-v11"],
    ["mistralai/Magistral-Small-2509", "mistral-v11"],
    ["deepseek-ai/DeepSeek-V3-0324", "deepseek"],
    ["deepseek-ai/DeepSeek-R1", "deepseek"],
    ["deepseek-ai/DeepSeek-V3.1", "deepseek-v31"],
    ["deepseek-ai/DeepSeek-V3.2-Exp", "deepseek-v31"],
    ["deepseek-ai/DeepSeek-V3.2", "deepseek-v32"],
    ["deepseek-ai/DeepSeek-V4-Flash", "deepseek-v4"],
    ["deepseek-ai/DeepSeek-V4.1", "deepseek-v41"],
    ["moonshotai/Kimi-K3", "kimi-k3"],
    ["MiniMaxAI/MiniMax-M3", "minimax-m3"],
    ["google/gemma-4-31b-it", "gemma4"],
    ["gemma4:e4b", "gemma4"],
    ["google/functiongemma-270m-it", "functiongemma"],
    ["google/gemma-3-27b-it", "hermes"],
    ["MiniMaxAI/MiniMax-M2.5", "minimax"],
    ["ByteDance-Seed/Seed-OSS-36B-Instruct", "seed-oss"],
    ["stepfun-ai/step3", "step3"],
    ["tencent/Hunyuan-A13B-Instruct", "hunyuan"],
    ["LiquidAI/LFM2-1.2B-Tool", "lfm2"],
    ["allenai/Olmo-3-7B-Instruct", "olmo3"],
    ["Salesforce/Llama-xLAM-2-8b-fc-r", "xlam"],
    ["Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3-coder"],
    ["zai-org/GLM-4.6", "glm"],
    ["moonshotai/Kimi-K2-Instruct", "kimi"],
    ["openai/gpt-oss-20b", "gpt-oss"],
    ["ibm-granite/granite-3.1-8b-instruct", "granite"],
    ["ibm-granite/granite-4.0-h-small", "hermes"],
    ["some-unknown-model", "hermes"],
  ])("reads %s as %s", (model, format) => {
    expect(detectPromptFormat(model)).toBe(format);
  });
});

describe.each(PromptFormatSchema.options)("the %s prompt family", (format) => {
  const family = promptFamily("any", format);
  const calls = [
    { id: "call_1", name: "get_weather", arguments: '{"city": "Paris", "days": 2}' },
    { id: "call_2", name: "get_weather", arguments: '{"city": "Rome"}' },
  ];

  it("writes earlier calls in a form the parser reads back as the same calls", () => {
    const parsed = parseToolCalls(family.formatCalls(calls), { tools: [weather] });
    expect(parsed.calls).toEqual([
      { name: "get_weather", arguments: { city: "Paris", days: 2 } },
      { name: "get_weather", arguments: { city: "Rome" } },
    ]);
    expect(parsed.content.trim()).toBe("");
  });

  it("asks for calls in its format and sends results back wrapped as its template does", () => {
    const prompt = buildToolPrompt([weather], { family });
    expect(prompt).toContain(family.instruction);
    expect(prompt).toContain(`Results come back in ${family.resultsAre}.`);
    const history: Message[] = [
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: "", toolCalls: [calls[0]!] },
      { role: "tool", toolCallId: "call_1", name: "get_weather", content: "Sunny" },
    ];
    const rendered = renderPromptMessages(history, [weather], undefined, family);
    expect(rendered[2]).toEqual({ role: "assistant", content: family.formatCalls([calls[0]!]) });
    const meta = { name: "get_weather", id: "call_1", isError: false };
    expect(rendered[3]).toEqual({ role: "user", content: `${family.resultOpen(meta, 0)}Sunny${family.resultClose(meta)}${family.resultsEnd ?? ""}` });
  });
});

describe("results go back as each template sends them", () => {
  const results: Message[] = [
    { role: "assistant", content: "", toolCalls: [{ id: "a", name: "get_weather", arguments: "{}" }, { id: "b", name: "get_weather", arguments: "{}" }] },
    { role: "tool", toolCallId: "a", name: "get_weather", content: "Sunny" },
    { role: "tool", toolCallId: "b", name: "get_weather", content: "Rain", isError: true },
  ];
  const user = (format: Parameters<typeof promptFamily>[1]): unknown => renderPromptMessages(results, [weather], undefined, promptFamily("", format))[2]?.content;

  it("DeepSeek V4 and V4.1 merge them into the user turn as <tool_result> blocks a blank line apart", () => {
    expect(user("deepseek-v4")).toBe("<tool_result>Sunny</tool_result>\n\n<tool_result>Error: Rain</tool_result>");
    expect(user("deepseek-v41")).toBe("<tool_result>Sunny</tool_result>\n\n<tool_result>Error: Rain</tool_result>");
  });

  it("DeepSeek V3 wraps the run of outputs in its outputs section", () => {
    expect(user("deepseek")).toBe(
      "<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>get_weather: Sunny<｜tool▁output▁end｜><｜tool▁output▁begin｜>get_weather (error): Rain<｜tool▁output▁end｜><｜tool▁outputs▁end｜>",
    );
  });

  it("Kimi K3 sends each as a tool message naming the call's tool and index", () => {
    expect(user("kimi-k3")).toBe(
      '<|open|>message role="tool" tool="get_weather" index="1"<|sep|>Sunny<|close|>message<|sep|><|end_of_msg|>' +
        '<|open|>message role="tool" tool="get_weather" index="2"<|sep|>Error: Rain<|close|>message<|sep|><|end_of_msg|>',
    );
  });

  it("MiniMax M3 writes nested arguments as its template's to_xml does, and reads them back", () => {
    const call = { id: "c", name: "plan", arguments: JSON.stringify({ steps: [{ id: 1, act: "go" }], window: { start: 1 }, skip: null }) };
    const ns = "]<]minimax[>[";
    const text = promptFamily("", "minimax-m3").formatCalls([call]);
    expect(text).toBe(
      `${ns}<tool_call>\n${ns}<invoke name="plan">${ns}<steps>${ns}<item>${ns}<id>1${ns}</id>${ns}<act>go${ns}</act>${ns}</item>${ns}</steps>` +
        `${ns}<window>${ns}<start>1${ns}</start>${ns}</window>${ns}</invoke>\n${ns}</tool_call>`,
    );
    expect(parseToolCalls(text).calls).toEqual([{ name: "plan", arguments: { steps: [{ id: 1, act: "go" }], window: { start: 1 } } }]);
  });
});
