import { jsonSchema, stepCountIs, streamText, tool, type LanguageModel } from "ai";
import { expect } from "vitest";

/**
 * TEST INFRASTRUCTURE: the AI SDK's two streamText turns every gateway API is tried with, one
 * model per provider (chat completions' openai-compatible, Responses' openai()).
 */

export const WEATHER_PARAMETERS: { type: "object"; properties: { city: { type: "string" } }; required: string[] } = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
};

/** "What is the date?": the MCP tool runs inside the gateway; the client sees one step, one answer, the usage of both rounds. */
export async function expectDateTurn(model: LanguageModel, answer: string, inputTokens: number) {
  const result = streamText({ model, prompt: "What is the date?" });
  let text = "";
  for await (const delta of result.textStream) text += delta;
  expect(text).toBe(answer);
  expect(await result.finishReason).toBe("stop");
  expect(await result.steps).toHaveLength(1);
  expect((await result.usage).inputTokens).toBe(inputTokens);
  return result;
}

/** "Weather in Taipei?": the client's own tool comes back to the client, which runs it, and the loop goes on. */
export async function expectClientToolTurn(model: LanguageModel, answer: string): Promise<void> {
  const ran: string[] = [];
  const result = streamText({
    model,
    prompt: "Weather in Taipei?",
    tools: {
      get_weather: tool({
        description: "Weather in a city",
        inputSchema: jsonSchema<{ city: string }>(WEATHER_PARAMETERS),
        execute: async ({ city }) => {
          ran.push(city);
          return "25°C";
        },
      }),
    },
    stopWhen: stepCountIs(3),
  });
  let text = "";
  for await (const delta of result.textStream) text += delta;
  expect(ran).toEqual(["Taipei"]);
  expect(text).toBe(answer);
  expect((await result.steps).map((step) => step.finishReason)).toEqual(["tool-calls", "stop"]);
}
