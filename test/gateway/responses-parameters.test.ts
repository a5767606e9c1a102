import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";
import { openaiClient, startHarness, type Harness } from "./harness.js";

/** Every parameter a Responses client sets, through the gateway to the scripted vLLM server (the real openai SDK as the client). */

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

const DATE_CALL = { toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }] };

/** The upstream requests the next call makes. */
async function upstreamBodies(call: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const before = harness.upstream.chatRequests.length;
  await call();
  return harness.upstream.chatRequests.slice(before).map((request) => request.body as Record<string, unknown>);
}

describe("Responses parameters", () => {
  it("forwards top_p, temperature, max_output_tokens, parallel_tool_calls, reasoning.effort, user and the client's tool_choice to every round", async () => {
    harness.upstream.push(DATE_CALL, { text: "Today." });
    let response: OpenAI.Responses.Response | undefined;
    const bodies = await upstreamBodies(async () => {
      response = await openaiClient(harness).responses.create({
        model: DEFAULT_VLLM_MODEL,
        input: "What is the date?",
        top_p: 0.8,
        temperature: 0.3,
        max_output_tokens: 200,
        parallel_tool_calls: false,
        reasoning: { effort: "low" },
        user: "user-7",
        safety_identifier: "hash-7",
        prompt_cache_key: "conversation-7",
        text: { verbosity: "low" },
        metadata: { ticket: "42" },
        tool_choice: "auto",
      });
    });
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      expect(body).toMatchObject({ top_p: 0.8, temperature: 0.3, max_tokens: 200, reasoning_effort: "low", user: "user-7", safety_identifier: "hash-7", prompt_cache_key: "conversation-7", verbosity: "low" });
      // Tags of the response, not of the model's request: OpenAI's chat completions refuse them unless they store the completion.
      expect(body.metadata).toBeUndefined();
      expect(body.max_output_tokens).toBeUndefined();
      expect(body.reasoning).toBeUndefined();
    }
    expect(bodies[0]).toMatchObject({ parallel_tool_calls: false, tool_choice: "auto" });
    expect(response).toMatchObject({ top_p: 0.8, temperature: 0.3, max_output_tokens: 200, parallel_tool_calls: false, reasoning: { effort: "low" }, metadata: { ticket: "42" }, user: "user-7" });
  });

  it("forwards vLLM's sampling extras (seed, stop, penalties, top_k, min_p, chat_template_kwargs) and leaves OpenAI's platform fields out", async () => {
    harness.upstream.push({ text: "ok" });
    const [body] = await upstreamBodies(() =>
      openaiClient(harness).responses.create({
        model: DEFAULT_VLLM_MODEL,
        input: "Say ok",
        truncation: "auto",
        service_tier: "default",
        include: ["reasoning.encrypted_content"],
        background: false,
        // vLLM's own fields, as its docs tell openai SDK users to send them.
        // @ts-expect-error not in OpenAI's types
        seed: 42,
        stop: ["END"],
        presence_penalty: 0.5,
        frequency_penalty: -0.5,
        top_k: 20,
        min_p: 0.05,
        repetition_penalty: 1.1,
        chat_template_kwargs: { enable_thinking: false },
      }),
    );
    expect(body).toMatchObject({ seed: 42, stop: ["END"], presence_penalty: 0.5, frequency_penalty: -0.5, top_k: 20, min_p: 0.05, repetition_penalty: 1.1, chat_template_kwargs: { enable_thinking: false }, service_tier: "default" });
    for (const field of ["truncation", "include", "background", "store", "input", "instructions", "text"]) expect(body?.[field]).toBeUndefined();
  });

  it("asks for logprobs when include names them, and returns them on the output text, whole and streamed", async () => {
    harness.upstream.push({ text: "Hello there." }, { text: "Hello there." });
    const params = { model: DEFAULT_VLLM_MODEL, input: "hi", include: ["message.output_text.logprobs" as const], top_logprobs: 2 };
    const [body] = await upstreamBodies(async () => {
      const whole = await openaiClient(harness).responses.create(params);
      const part = (whole.output[0] as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
      expect(part.logprobs?.map((token) => token.token).join("")).toBe("Hello there.");
      expect(part.logprobs?.every((token) => token.logprob === -0.5)).toBe(true);
      expect((whole as unknown as { top_logprobs: number }).top_logprobs).toBe(2);
    });
    expect(body).toMatchObject({ logprobs: true, top_logprobs: 2 });
    const stream = openaiClient(harness).responses.stream(params);
    let done: OpenAI.Responses.ResponseTextDoneEvent | undefined;
    for await (const event of stream) if (event.type === "response.output_text.done") done = event;
    expect(done?.logprobs.map((token) => token.token).join("")).toBe("Hello there.");
  });

  it("sends no logprobs, seed or sampling field the client did not set", async () => {
    harness.upstream.push({ text: "ok" });
    const [body] = await upstreamBodies(() => openaiClient(harness).responses.create({ model: DEFAULT_VLLM_MODEL, input: "Say ok" }));
    for (const field of ["logprobs", "top_logprobs", "top_p", "seed", "reasoning_effort", "user", "parallel_tool_calls", "verbosity"]) expect(body?.[field]).toBeUndefined();
  });

  it("answers 400 naming the field for a sampling value out of range", async () => {
    const sdk = openaiClient(harness);
    await expect(sdk.responses.create({ model: DEFAULT_VLLM_MODEL, input: "hi", top_p: 3 })).rejects.toMatchObject({ status: 400, message: expect.stringContaining("top_p") });
  });

  it("answers 400 naming the count and the limit for more than 10,000 input items", async () => {
    const input = Array.from({ length: 10_001 }, () => ({ role: "user" as const, content: "hi" }));
    const error = await openaiClient(harness).responses.create({ model: DEFAULT_VLLM_MODEL, input }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400 });
    expect((error as Error).message).toContain("input: 10001 items; at most 10000 are accepted");
  });
});
