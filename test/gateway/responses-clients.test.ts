import { createOpenAI } from "@ai-sdk/openai";
import { HumanMessage, ToolMessage, type AIMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { Agent, hostedMcpTool, OpenAIProvider, OpenAIResponsesModel, Runner, setTracingDisabled, tool as agentTool } from "@openai/agents";
import { streamText } from "ai";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";
import { expectClientToolTurn, expectDateTurn, WEATHER_PARAMETERS } from "./ai-sdk-turns.js";
import { GEMINI_3, startGemini3Harness, startHarness, WEATHER_SIGNATURE, type Harness } from "./harness.js";

/** Clients of the Responses API against the gateway: the OpenAI Agents SDK, the AI SDK's `openai()` provider, LangChain with `useResponsesApi`. */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});
// The Agents SDK would send traces to OpenAI.
beforeAll(() => setTracingDisabled(true));

const DATE_CALL = { toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }] };
const WEATHER_CALL = { toolCalls: [{ name: "get_weather", arguments: { city: "Taipei" } }] };

describe("the OpenAI Agents SDK (OpenAIResponsesModel)", () => {
  async function agentModel(h: Harness) {
    const model = await new OpenAIProvider({ baseURL: h.baseURL, apiKey: "none", useResponses: true }).getModel(DEFAULT_VLLM_MODEL);
    expect(model).toBeInstanceOf(OpenAIResponsesModel);
    return model;
  }

  it("runs an agent whose function tool the SDK runs, the MCP loop inside the gateway", async () => {
    harness = await startHarness({ replies: [WEATHER_CALL, { text: "25°C in Taipei." }] });
    const ran: string[] = [];
    const weather = agentTool({
      name: "get_weather",
      description: "Weather in a city",
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        ran.push(city);
        return "25°C";
      },
    });
    const agent = new Agent({ name: "helper", instructions: "Be brief.", model: await agentModel(harness), tools: [weather] });
    const result = await new Runner({ tracingDisabled: true }).run(agent, "Weather in Taipei?");
    expect(ran).toEqual(["Taipei"]);
    expect(result.finalOutput).toBe("25°C in Taipei.");
    expect(JSON.stringify(harness.upstream.chatRequests[1]?.body.messages)).toContain("25°C");
  });

  it("streams an agent's run, with OpenAI's hosted MCP tool served by the configured server", async () => {
    harness = await startHarness({ replies: [DATE_CALL, { text: "It is today." }] });
    const agent = new Agent({
      name: "helper",
      model: await agentModel(harness),
      tools: [hostedMcpTool({ serverLabel: "time", serverUrl: "https://example.invalid/mcp", requireApproval: "never" })],
    });
    const result = await new Runner({ tracingDisabled: true }).run(agent, "What is the date?", { stream: true });
    let text = "";
    for await (const chunk of result.toTextStream()) text += chunk;
    await result.completed;
    expect(text).toBe("It is today.");
    const items = result.newItems.map((item) => item.type);
    expect(items).toContain("tool_call_item");
    expect(JSON.stringify(result.newItems)).toContain("mcp_call");
  });
});

describe("the AI SDK's openai() provider (Responses)", () => {
  it("streamText: MCP tools run inside, one step, reasoning and usage come through", async () => {
    harness = await startHarness({
      replies: [{ ...DATE_CALL, usage: { prompt_tokens: 10, completion_tokens: 2 } }, { reasoning: "Answer from the tool's result.", text: "It is **today**.", usage: { prompt_tokens: 20, completion_tokens: 3 } }],
    });
    const openai = createOpenAI({ baseURL: harness.baseURL, apiKey: "none" });
    const result = await expectDateTurn(openai(DEFAULT_VLLM_MODEL), "It is **today**.", 30);
    expect(await result.reasoningText).toBe("Answer from the tool's result.");
    expect(harness.upstream.chatRequests).toHaveLength(2);
  });

  it("streamText: an answer cut at maxOutputTokens finishes with reason length (response.incomplete)", async () => {
    harness = await startHarness({ replies: [{ text: "Today is", finishReason: "length" }], servers: {} });
    const openai = createOpenAI({ baseURL: harness.baseURL, apiKey: "none" });
    const result = streamText({ model: openai(DEFAULT_VLLM_MODEL), prompt: "What is the date?", maxOutputTokens: 3 });
    expect(await result.text).toBe("Today is");
    expect(await result.finishReason).toBe("length");
    expect(harness.upstream.chatRequests[0]?.body.max_tokens).toBe(3);
  });

  it("streamText: a client tool is the client's to run, and the loop goes on", async () => {
    harness = await startHarness({ replies: [WEATHER_CALL, { text: "25°C in Taipei." }] });
    const openai = createOpenAI({ baseURL: harness.baseURL, apiKey: "none" });
    await expectClientToolTurn(openai(DEFAULT_VLLM_MODEL), "25°C in Taipei.");
  });
});

describe.each([
  { mode: "native", toolsEnabled: true },
  { mode: "prompt", toolsEnabled: false },
] as const)("the AI SDK's openai() provider with store on (its default), $mode mode", ({ mode, toolsEnabled }) => {
  const weatherCall =
    mode === "native"
      ? { reasoning: "The user wants the weather.", text: "Let me check.", toolCalls: [{ name: "get_weather", arguments: { city: "Taipei" } }] }
      : { reasoning: "The user wants the weather.", text: 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Taipei"}}\n</tool_call>' };

  it("the second step refers to the first step's reasoning and text by item_reference, which the gateway finds in its store", async () => {
    harness = await startHarness({ replies: [weatherCall, { text: "25°C in Taipei." }], toolsEnabled, servers: {} });
    const requests: Record<string, unknown>[] = [];
    const openai = createOpenAI({
      baseURL: harness.baseURL,
      apiKey: "none",
      fetch: async (url, init) => {
        requests.push(JSON.parse(String(init?.body)));
        return fetch(url, init);
      },
    });
    // The text of both steps: the words before the call (prompt mode keeps the line break before it), then the answer.
    await expectClientToolTurn(openai(DEFAULT_VLLM_MODEL), `Let me check.${mode === "prompt" ? "\n" : ""}25°C in Taipei.`);
    // The client did refer to the stored items, and the model got them back as one assistant message.
    expect(JSON.stringify(requests[1]?.input)).toContain('"type":"item_reference"');
    const messages = harness.upstream.chatRequests.at(-1)?.body.messages as { role: string; content: unknown }[];
    expect(messages.map((message) => message.role)).toEqual(mode === "native" ? ["user", "assistant", "tool"] : ["system", "user", "assistant", "user"]);
    expect(JSON.stringify(messages[mode === "native" ? 1 : 2])).toContain("Let me check.");
  });
});

describe("LangChain ChatOpenAI with useResponsesApi", () => {
  function chat(h: Harness) {
    return new ChatOpenAI({ model: DEFAULT_VLLM_MODEL, apiKey: "none", configuration: { baseURL: h.baseURL }, maxRetries: 0, useResponsesApi: true });
  }

  it("streams an answer with its reasoning; MCP tools run inside", async () => {
    harness = await startHarness({ replies: [DATE_CALL, { reasoning: "Use the date.", text: "It is today." }] });
    let reasoning = "";
    let text = "";
    for await (const chunk of await chat(harness).stream("What is the date?")) {
      expect(chunk.tool_call_chunks ?? []).toEqual([]);
      const summary = (chunk.additional_kwargs.reasoning as { summary?: { text: string }[] } | undefined)?.summary ?? [];
      reasoning += summary.map((part) => part.text).join("");
      text += typeof chunk.content === "string" ? chunk.content : chunk.content.map((part) => ("text" in part ? part.text : "")).join("");
    }
    expect(text).toBe("It is today.");
    expect(reasoning).toContain("Use the date.");
  });

  it("bindTools: the bound tool comes back as a tool call, its result continues", async () => {
    harness = await startHarness({ replies: [WEATHER_CALL, { text: "25°C in Taipei." }] });
    const model = chat(harness).bindTools([{ type: "function", function: { name: "get_weather", description: "Weather in a city", parameters: WEATHER_PARAMETERS } }]);
    const question = new HumanMessage("Weather in Taipei?");
    const first = (await model.invoke([question])) as AIMessage;
    expect(first.tool_calls?.map((call) => ({ name: call.name, args: call.args }))).toEqual([{ name: "get_weather", args: { city: "Taipei" } }]);
    const answer = await model.invoke([question, first, new ToolMessage({ content: "25°C", tool_call_id: first.tool_calls?.[0]?.id as string })]);
    expect(answer.text).toBe("25°C in Taipei.");
  });
});

describe("a Gemini 3 model's thought signature reaches Gemini again through Responses clients", () => {
  it("the AI SDK's openai() provider, which drops extra_content, gives it back in the call_id", async () => {
    const gemini = await startGemini3Harness("25°C in Taipei.");
    harness = gemini;
    await expectClientToolTurn(createOpenAI({ baseURL: gemini.baseURL, apiKey: "none" })(GEMINI_3), "25°C in Taipei.");
    expect(gemini.signedCall()).toEqual({ functionCall: { name: "get_weather", args: { city: "Taipei" }, id: "fc-1" }, thoughtSignature: WEATHER_SIGNATURE });
  });

  it("LangChain ChatOpenAI with useResponsesApi, which replays the output items whole, gives it back (extra_content and call_id agree)", async () => {
    const gemini = await startGemini3Harness("25°C in Taipei.");
    harness = gemini;
    const model = new ChatOpenAI({ model: GEMINI_3, apiKey: "none", configuration: { baseURL: gemini.baseURL }, maxRetries: 0, useResponsesApi: true }).bindTools([{ type: "function", function: { name: "get_weather", description: "Weather in a city", parameters: WEATHER_PARAMETERS } }]);
    const question = new HumanMessage("Weather in Taipei?");
    const first = (await model.invoke([question])) as AIMessage;
    const answer = await model.invoke([question, first, new ToolMessage({ content: "25°C", tool_call_id: first.tool_calls?.[0]?.id as string })]);
    expect(answer.text).toBe("25°C in Taipei.");
    expect(gemini.signedCall()).toEqual({ functionCall: { name: "get_weather", args: { city: "Taipei" }, id: "fc-1" }, thoughtSignature: WEATHER_SIGNATURE });
  });
});
