import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ChatOpenAI } from "@langchain/openai";
import { Agent, OpenAIProvider, Runner, setTracingDisabled } from "@openai/agents";
import { generateObject, jsonSchema } from "ai";
import OpenAI from "openai";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";
import { openaiClient, startHarness, type Harness } from "./harness.js";

/**
 * Structured output from three real clients (the openai SDK's parse helper, the AI SDK's
 * generateObject, LangChain's withStructuredOutput; on the Responses API the openai SDK's
 * responses.parse and the OpenAI Agents SDK's output types), with an MCP tool round before the answer.
 */

// The Agents SDK would send traces to OpenAI.
beforeAll(() => setTracingDisabled(true));

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const DATE_CALL = { toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }] };
const PLACE = '{"city": "Taipei", "year": 2026}';
const Place = z.object({ city: z.string(), year: z.number().int() });

/** The last upstream request: what the final, constrained answer was asked with. */
function lastBody(h: Harness) {
  return h.upstream.chatRequests.at(-1)?.body;
}

describe("structured output with the MCP loop", () => {
  it("openai SDK chat.completions.parse", async () => {
    harness = await startHarness({ replies: [DATE_CALL, { text: "Taipei, this year." }, { text: PLACE }] });
    const { zodResponseFormat } = await import("openai/helpers/zod");
    const sdk = new OpenAI({ baseURL: harness.baseURL, apiKey: "none", maxRetries: 0 });
    const completion = await sdk.chat.completions.parse({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "Where and when?" }], response_format: zodResponseFormat(Place, "place") });
    expect(completion.choices[0]?.message.parsed).toEqual({ city: "Taipei", year: 2026 });
    expect(harness.upstream.chatRequests[0]?.body.response_format).toBeUndefined();
    expect(lastBody(harness)?.response_format).toMatchObject({ type: "json_schema", json_schema: { name: "place" } });
    expect(lastBody(harness)?.tools).toBeUndefined();
  });

  it.each([
    { label: "json_schema (supportsStructuredOutputs)", structured: true },
    { label: "json_object", structured: false },
  ])("AI SDK generateObject, $label", async ({ structured }) => {
    harness = await startHarness({ replies: [DATE_CALL, { text: PLACE }] });
    const provider = createOpenAICompatible({ name: "toolbridge", baseURL: harness.baseURL, apiKey: "none", supportsStructuredOutputs: structured });
    const { object } = await generateObject({
      model: provider(DEFAULT_VLLM_MODEL),
      schema: jsonSchema<{ city: string; year: number }>({ type: "object", properties: { city: { type: "string" }, year: { type: "integer" } }, required: ["city", "year"], additionalProperties: false }),
      prompt: "Where and when?",
    });
    expect(object).toEqual({ city: "Taipei", year: 2026 });
    // The answer matched, so no format round: the tool round and the answer both went with tools and without the format.
    expect(harness.upstream.chatRequests).toHaveLength(2);
    expect(harness.upstream.chatRequests.every((request) => request.body.response_format === undefined)).toBe(true);
  });

  it("AI SDK generateObject: a prose answer gets a format round carrying the client's schema", async () => {
    harness = await startHarness({ replies: [DATE_CALL, { text: "Taipei." }, { text: PLACE }] });
    const provider = createOpenAICompatible({ name: "toolbridge", baseURL: harness.baseURL, apiKey: "none", supportsStructuredOutputs: true });
    const { object } = await generateObject({ model: provider(DEFAULT_VLLM_MODEL), schema: Place, prompt: "Where and when?" });
    expect(object).toEqual({ city: "Taipei", year: 2026 });
    expect(lastBody(harness)?.response_format).toMatchObject({ type: "json_schema", json_schema: { schema: { required: ["city", "year"] } } });
  });

  it.each(["jsonSchema", "jsonMode", "functionCalling"] as const)("LangChain withStructuredOutput, method %s", async (method) => {
    const answer = method === "functionCalling" ? { toolCalls: [{ name: "place", arguments: { city: "Taipei", year: 2026 } }] } : { text: PLACE };
    harness = await startHarness({ replies: [DATE_CALL, answer] });
    const chat = new ChatOpenAI({ model: DEFAULT_VLLM_MODEL, apiKey: "none", configuration: { baseURL: harness.baseURL }, maxRetries: 0 });
    const structured = chat.withStructuredOutput(Place, { name: "place", method });
    expect(await structured.invoke("Where and when?")).toEqual({ city: "Taipei", year: 2026 });
    const first = harness.upstream.chatRequests[0]?.body;
    // The MCP tool was offered beside whatever LangChain asked for.
    expect(JSON.stringify(first?.tools)).toContain("get-date");
    if (method === "functionCalling") expect(JSON.stringify(first?.tools)).toContain('"place"');
  });
});

describe("structured output on the Responses API (text.format) with the MCP loop", () => {
  it("openai SDK responses.parse: the tool round goes without the format, the answer with the client's schema", async () => {
    harness = await startHarness({ replies: [DATE_CALL, { text: PLACE }] });
    const { zodTextFormat } = await import("openai/helpers/zod");
    const response = await openaiClient(harness).responses.parse({ model: DEFAULT_VLLM_MODEL, input: "Where and when?", text: { format: zodTextFormat(Place, "place") } });
    expect(response.output_parsed).toEqual({ city: "Taipei", year: 2026 });
    expect(response.text?.format).toMatchObject({ type: "json_schema", name: "place" });
    const [toolRound, answer] = harness.upstream.chatRequests;
    expect(JSON.stringify(toolRound?.body.tools)).toContain("get-date");
    expect(toolRound?.body.response_format).toBeUndefined();
    // The answer came back in form with tools offered, so it needed no format round of its own.
    expect(harness.upstream.chatRequests).toHaveLength(2);
    expect(answer?.body.response_format).toBeUndefined();
  });

  it("openai SDK responses.stream with json_object: a prose answer gets a format round, and only the JSON is streamed", async () => {
    harness = await startHarness({ replies: [DATE_CALL, { text: "Taipei, this year." }, { text: PLACE }] });
    const stream = openaiClient(harness).responses.stream({ model: DEFAULT_VLLM_MODEL, input: "Where and when? Answer in JSON.", text: { format: { type: "json_object" } } });
    let deltas = "";
    stream.on("response.output_text.delta", (event) => (deltas += event.delta));
    const response = await stream.finalResponse();
    expect(JSON.parse(deltas)).toEqual({ city: "Taipei", year: 2026 });
    const message = response.output.find((item) => item.type === "message");
    expect(message?.type === "message" ? message.content : undefined).toEqual([expect.objectContaining({ type: "output_text", text: PLACE })]);
    expect(lastBody(harness)?.response_format).toEqual({ type: "json_object" });
    expect(lastBody(harness)?.tools).toBeUndefined();
  });

  it("OpenAI Agents SDK: an agent's outputType is parsed from the final answer after an MCP tool round", async () => {
    harness = await startHarness({ replies: [DATE_CALL, { text: "Taipei." }, { text: PLACE }] });
    const model = await new OpenAIProvider({ baseURL: harness.baseURL, apiKey: "none", useResponses: true }).getModel(DEFAULT_VLLM_MODEL);
    const agent = new Agent({ name: "helper", model, outputType: Place });
    const result = await new Runner({ tracingDisabled: true }).run(agent, "Where and when?");
    expect(result.finalOutput).toEqual({ city: "Taipei", year: 2026 });
    expect(lastBody(harness)?.response_format).toMatchObject({ type: "json_schema", json_schema: { name: "output", schema: { required: ["city", "year"] } } });
  });
});
