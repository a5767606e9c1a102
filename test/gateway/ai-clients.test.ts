import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";
import { expectClientToolTurn, expectDateTurn, WEATHER_PARAMETERS } from "./ai-sdk-turns.js";
import { GEMINI_3, startGemini3Harness, startHarness, WEATHER_SIGNATURE, type Harness } from "./harness.js";

/** The Vercel AI SDK's OpenAI-compatible provider and LangChain's ChatOpenAI against the gateway, in native and prompt modes. */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe.each([
  { mode: "native", toolsEnabled: true },
  { mode: "prompt", toolsEnabled: false },
] as const)("$mode mode", ({ mode, toolsEnabled }) => {
  const dateCall =
    mode === "native"
      ? { toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }] }
      : { text: '<tool_call>\n{"name": "get-date", "arguments": {"format": "date-only"}}\n</tool_call>' };
  const weatherCall =
    mode === "native"
      ? { toolCalls: [{ name: "get_weather", arguments: { city: "Taipei" } }] }
      : { text: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Taipei"}}\n</tool_call>' };

  it("AI SDK streamText: MCP tools run inside, one step, one answer", async () => {
    harness = await startHarness({ replies: [{ ...dateCall, usage: { prompt_tokens: 10, completion_tokens: 2 } }, { text: "It is **today**.", usage: { prompt_tokens: 20, completion_tokens: 3 } }], toolsEnabled });
    const provider = createOpenAICompatible({ name: "toolbridge", baseURL: harness.baseURL, apiKey: "none", includeUsage: true });
    await expectDateTurn(provider(DEFAULT_VLLM_MODEL), "It is **today**.", 30);
  });

  it("AI SDK streamText: a client tool is the client's to run, and the loop goes on", async () => {
    harness = await startHarness({ replies: [weatherCall, { text: "25°C in Taipei." }], toolsEnabled });
    const provider = createOpenAICompatible({ name: "toolbridge", baseURL: harness.baseURL, apiKey: "none" });
    await expectClientToolTurn(provider(DEFAULT_VLLM_MODEL), "25°C in Taipei.");
  });

  it("LangChain ChatOpenAI: MCP tools run inside; streamed chunks carry no tool calls", async () => {
    harness = await startHarness({ replies: [dateCall, { text: "It is today." }], toolsEnabled });
    const model = new ChatOpenAI({ model: DEFAULT_VLLM_MODEL, apiKey: "none", configuration: { baseURL: harness.baseURL }, maxRetries: 0 });
    let text = "";
    for await (const chunk of await model.stream("What is the date?")) {
      expect(chunk.tool_call_chunks ?? []).toEqual([]);
      text += typeof chunk.content === "string" ? chunk.content : "";
    }
    expect(text).toBe("It is today.");
  });

  it("LangChain ChatOpenAI.bindTools: the bound tool comes back as a tool call, its result continues", async () => {
    harness = await startHarness({ replies: [weatherCall, { text: "25°C in Taipei." }], toolsEnabled });
    const model = new ChatOpenAI({ model: DEFAULT_VLLM_MODEL, apiKey: "none", configuration: { baseURL: harness.baseURL }, maxRetries: 0 }).bindTools([
      { type: "function", function: { name: "get_weather", description: "Weather in a city", parameters: WEATHER_PARAMETERS } },
    ]);
    const question = new HumanMessage("Weather in Taipei?");
    const first = (await model.invoke([question])) as AIMessage;
    expect(first.tool_calls?.map((call) => ({ name: call.name, args: call.args }))).toEqual([{ name: "get_weather", args: { city: "Taipei" } }]);
    const answer = await model.invoke([question, first, new ToolMessage({ content: "25°C", tool_call_id: first.tool_calls?.[0]?.id as string })]);
    expect(answer.content).toBe("25°C in Taipei.");
  });
});

describe("a Gemini 3 model's thought signature, through chat completions clients that drop extra_content but keep the call id", () => {
  it("the AI SDK's openai.chat() provider gives it back in the tool call id", async () => {
    const gemini = await startGemini3Harness("25°C in Taipei.");
    harness = gemini;
    await expectClientToolTurn(createOpenAI({ baseURL: gemini.baseURL, apiKey: "none" }).chat(GEMINI_3), "25°C in Taipei.");
    expect(gemini.signedCall()).toEqual({ functionCall: { name: "get_weather", args: { city: "Taipei" }, id: "fc-1" }, thoughtSignature: WEATHER_SIGNATURE });
  });

  it("LangChain ChatOpenAI gives it back in the tool call id", async () => {
    const gemini = await startGemini3Harness("25°C in Taipei.");
    harness = gemini;
    const model = new ChatOpenAI({ model: GEMINI_3, apiKey: "none", configuration: { baseURL: gemini.baseURL }, maxRetries: 0 }).bindTools([{ type: "function", function: { name: "get_weather", description: "Weather in a city", parameters: WEATHER_PARAMETERS } }]);
    const question = new HumanMessage("Weather in Taipei?");
    const first = (await model.invoke([question])) as AIMessage;
    const answer = await model.invoke([question, first, new ToolMessage({ content: "25°C", tool_call_id: first.tool_calls?.[0]?.id as string })]);
    expect(answer.text).toBe("25°C in Taipei.");
    expect(gemini.signedCall()).toEqual({ functionCall: { name: "get_weather", args: { city: "Taipei" }, id: "fc-1" }, thoughtSignature: WEATHER_SIGNATURE });
  });
});
