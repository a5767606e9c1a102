import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ChatOpenAI } from "@langchain/openai";
import { generateObject, jsonSchema } from "ai";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";
import { startHarness, type Harness } from "./harness.js";

/**
 * Structured output from three real clients (the openai SDK's parse helper, the AI SDK's
 * generateObject, LangChain's withStructuredOutput), with an MCP tool round before the answer.
 */

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
