import { request } from "node:http";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";
import { openaiClient, startHarness, type Harness } from "./harness.js";

/** Every parameter a chat-completions client sets, through the gateway to the scripted vLLM server (the real openai SDK as the client). */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const client = openaiClient;

const DATE_CALL = { toolCalls: [{ name: "get-date", arguments: { format: "date-only" } }], usage: { prompt_tokens: 10, completion_tokens: 2 } };
const ASK = [{ role: "user" as const, content: "What is the date?" }];
const SAMPLING = {
  top_p: 0.9,
  stop: ["END", "STOP"],
  seed: 42,
  presence_penalty: 0.5,
  frequency_penalty: -0.5,
  logit_bias: { "1234": -100 },
  logprobs: true,
  top_logprobs: 3,
  parallel_tool_calls: false,
  reasoning_effort: "low" as const,
  user: "user-7",
};
const LEGACY_WEATHER = { name: "get_weather", description: "Weather in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };
const CITY_SCHEMA = { type: "object", properties: { city: { type: "string" }, year: { type: "integer" } }, required: ["city", "year"], additionalProperties: false };

describe("chat completions parameters", () => {
  it("forwards every sampling parameter and vLLM's extras to each round, and never n", async () => {
    harness = await startHarness({ replies: [DATE_CALL, { text: "Today." }] });
    await client(harness).chat.completions.create({
      model: DEFAULT_VLLM_MODEL,
      messages: ASK,
      ...SAMPLING,
      n: 1,
      max_completion_tokens: 300,
      tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } }],
      // vLLM's own fields, as its docs tell openai SDK users to send them.
      // @ts-expect-error not in OpenAI's types
      chat_template_kwargs: { enable_thinking: false },
      top_k: 20,
      min_p: 0.05,
      repetition_penalty: 1.1,
    });
    const bodies = harness.upstream.chatRequests.map((request) => request.body);
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      expect(body).toMatchObject({ ...SAMPLING, max_tokens: 300, chat_template_kwargs: { enable_thinking: false }, top_k: 20, min_p: 0.05, repetition_penalty: 1.1 });
      expect(body.n).toBeUndefined();
      expect(body.max_completion_tokens).toBeUndefined();
    }
  });

  it.each([false, true])("returns the upstream's logprobs, whole and streamed (streamed: %s)", async (streamed) => {
    harness = await startHarness({ replies: [{ text: "Hello there." }], servers: {} });
    const sdk = client(harness);
    const params = { model: DEFAULT_VLLM_MODEL, messages: ASK, logprobs: true, top_logprobs: 2 };
    let tokens: OpenAI.ChatCompletionTokenLogprob[] = [];
    let content = "";
    if (streamed) {
      for await (const chunk of await sdk.chat.completions.create({ ...params, stream: true })) {
        content += chunk.choices[0]?.delta.content ?? "";
        tokens.push(...(chunk.choices[0]?.logprobs?.content ?? []));
      }
    } else {
      const completion = await sdk.chat.completions.create(params);
      content = completion.choices[0]?.message.content ?? "";
      tokens = completion.choices[0]?.logprobs?.content ?? [];
    }
    expect(tokens.map((token) => token.token).join("")).toBe(content);
    expect(tokens.every((token) => token.logprob === -0.5)).toBe(true);
  });

  it("says finish_reason length when the model's answer was cut at max_tokens", async () => {
    harness = await startHarness({ replies: [DATE_CALL, { text: "Today is", finishReason: "length" }] });
    const completion = await client(harness).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: ASK, max_tokens: 3 });
    expect(completion.choices[0]?.finish_reason).toBe("length");
  });

  it("takes a single stop string as a list", async () => {
    harness = await startHarness({ replies: [{ text: "ok" }] });
    await client(harness).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: ASK, stop: "END" });
    expect(harness.upstream.chatRequests[0]?.body.stop).toEqual(["END"]);
  });

  it("refuses more choices than it runs, naming n", async () => {
    harness = await startHarness();
    const error = await client(harness).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: ASK, n: 1000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toMatch(/^400 n: at most 16 choices/);
    expect(harness.upstream.chatRequests).toHaveLength(0);
  });

  it("n runs n tool loops and returns n choices with their usage summed", async () => {
    harness = await startHarness({ replies: [DATE_CALL, DATE_CALL, { text: "One.", usage: { prompt_tokens: 20, completion_tokens: 1 } }, { text: "Two.", usage: { prompt_tokens: 20, completion_tokens: 1 } }] });
    const completion = await client(harness).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: ASK, n: 2 });
    expect(completion.choices.map((choice) => choice.index)).toEqual([0, 1]);
    expect(completion.choices.map((choice) => choice.message.content).sort()).toEqual(["One.", "Two."]);
    expect(completion.choices.every((choice) => choice.finish_reason === "stop")).toBe(true);
    // Each loop ran the tool and went back with its result.
    expect(harness.upstream.chatRequests.filter((request) => JSON.stringify(request.body.messages).includes('"role":"tool"'))).toHaveLength(2);
    expect(completion.usage).toEqual({ prompt_tokens: 60, completion_tokens: 6, total_tokens: 66 });
  });

  it("streams n choices, each with its index, one finish each", async () => {
    harness = await startHarness({ replies: [{ text: "Alpha" }, { text: "Beta" }, { text: "Gamma" }] });
    const stream = await client(harness).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: ASK, n: 3, stream: true });
    const content = ["", "", ""];
    const finishes: number[] = [];
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        content[choice.index] += choice.delta.content ?? "";
        if (choice.finish_reason) finishes.push(choice.index);
      }
    }
    expect([...content].sort()).toEqual(["Alpha", "Beta", "Gamma"]);
    expect(finishes.sort()).toEqual([0, 1, 2]);
  });

  it("json_schema: tool rounds go without the format; a final answer that matches is the answer", async () => {
    harness = await startHarness({ replies: [DATE_CALL, { text: '{"city": "Taipei", "year": 2026}' }] });
    const completion = await client(harness).chat.completions.create({
      model: DEFAULT_VLLM_MODEL,
      messages: ASK,
      response_format: { type: "json_schema", json_schema: { name: "place", schema: CITY_SCHEMA, strict: true } },
    });
    expect(JSON.parse(completion.choices[0]?.message.content ?? "")).toEqual({ city: "Taipei", year: 2026 });
    const bodies = harness.upstream.chatRequests.map((request) => request.body);
    expect(bodies).toHaveLength(2);
    expect(bodies.every((body) => body.response_format === undefined && body.tools !== undefined)).toBe(true);
  });

  it("json_schema: a final answer that does not match is asked for again, without tools and with the format, and only that one is streamed", async () => {
    harness = await startHarness({ replies: [DATE_CALL, { text: "It is Taipei in 2026." }, { text: '{"city": "Taipei", "year": 2026}' }] });
    const stream = await client(harness).chat.completions.create({
      model: DEFAULT_VLLM_MODEL,
      messages: ASK,
      stream: true,
      response_format: { type: "json_schema", json_schema: { name: "place", schema: CITY_SCHEMA, strict: true } },
    });
    let content = "";
    for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? "";
    expect(JSON.parse(content)).toEqual({ city: "Taipei", year: 2026 });
    const last = harness.upstream.chatRequests[2]?.body;
    expect(last?.tools).toBeUndefined();
    expect(last?.response_format).toEqual({ type: "json_schema", json_schema: { name: "place", schema: CITY_SCHEMA, strict: true } });
    // The prose answer was not kept in the conversation the format request carries.
    expect(JSON.stringify(last?.messages)).not.toContain("It is Taipei in 2026.");
  });

  it("json_object with no tools to offer goes with the first request", async () => {
    harness = await startHarness({ replies: [{ text: '{"ok": true}' }], servers: {} });
    const completion = await client(harness).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: ASK, response_format: { type: "json_object" } });
    expect(completion.choices[0]?.message.content).toBe('{"ok": true}');
    expect(harness.upstream.chatRequests[0]?.body.response_format).toEqual({ type: "json_object" });
  });

  it("text written beside tool calls under a response format comes out as reasoning, not in the JSON", async () => {
    harness = await startHarness({ replies: [{ ...DATE_CALL, text: "Let me look." }, { text: '{"city": "Taipei", "year": 2026}' }] });
    const completion = await client(harness).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: ASK, response_format: { type: "json_object" } });
    const message = completion.choices[0]?.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
    expect(message.content).toBe('{"city": "Taipei", "year": 2026}');
    expect(message.reasoning_content).toContain("Let me look.");
  });

  it("vLLM's guided_* fields go only with the final request, like response_format", async () => {
    harness = await startHarness({ replies: [DATE_CALL, { text: "maybe" }, { text: "yes" }] });
    const completion = await client(harness).chat.completions.create({
      model: DEFAULT_VLLM_MODEL,
      messages: ASK,
      // @ts-expect-error vLLM's field
      guided_choice: ["yes", "no"],
    });
    expect(completion.choices[0]?.message.content).toBe("yes");
    const bodies = harness.upstream.chatRequests.map((request) => request.body);
    expect(bodies.map((body) => body.guided_choice)).toEqual([undefined, undefined, ["yes", "no"]]);
    expect(bodies[2]?.tools).toBeUndefined();
  });

  it("passes input_audio parts to the model", async () => {
    harness = await startHarness({ replies: [{ text: "A bird." }], servers: {} });
    await client(harness).chat.completions.create({
      model: DEFAULT_VLLM_MODEL,
      messages: [{ role: "user", content: [{ type: "text", text: "What is this?" }, { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } }] }],
    });
    expect(harness.upstream.chatRequests[0]?.body.messages[0].content[1]).toEqual({ type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } });
  });

  it("passes http(s) image URLs to the model as they are (the upstream fetches them), and refuses other schemes with 400", async () => {
    harness = await startHarness({ replies: [{ text: "A cat." }], servers: {} });
    const sdk = client(harness);
    await sdk.chat.completions.create({
      model: DEFAULT_VLLM_MODEL,
      messages: [{ role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url: "https://images.example/cat.png?size=2" } }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] }],
    });
    expect(harness.upstream.chatRequests[0]?.body.messages[0].content.slice(1)).toEqual([
      { type: "image_url", image_url: { url: "https://images.example/cat.png?size=2" } },
      { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
    ]);
    for (const url of ["file:///etc/passwd", "images.example/cat.png"]) {
      const refused = sdk.chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: [{ type: "image_url", image_url: { url } }] }] });
      await expect(refused).rejects.toMatchObject({ status: 400, message: expect.stringContaining("messages[0].content[0]: images are accepted as data: URLs (base64) or http(s) URLs") });
    }
    expect(harness.upstream.chatRequests).toHaveLength(1);
  });

  it("reads legacy functions and function_call as tools and tool_choice, and answers a client function's call as message.function_call", async () => {
    harness = await startHarness({ replies: [{ toolCalls: [{ name: "get_weather", arguments: { city: "Taipei" } }] }, { text: "It is 25°C in Taipei." }] });
    const sdk = client(harness);
    const first = await sdk.chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "Weather in Taipei?" }], functions: [LEGACY_WEATHER], function_call: { name: "get_weather" } });
    const sent = harness.upstream.chatRequests[0]?.body;
    expect(sent?.tools?.map((tool: { type: string; function: { name: string } }) => `${tool.type} ${tool.function.name}`).sort()).toEqual(["function get-date", "function get_weather"]);
    expect(sent?.tool_choice).toEqual({ type: "function", function: { name: "get_weather" } });
    // A legacy answer holds one call, so the model is asked for one.
    expect(sent?.parallel_tool_calls).toBe(false);
    expect(sent).not.toHaveProperty("functions");
    expect(sent).not.toHaveProperty("function_call");
    const choice = first.choices[0];
    expect(choice?.finish_reason).toBe("function_call");
    expect(choice?.message.function_call).toEqual({ name: "get_weather", arguments: '{"city":"Taipei"}' });
    expect(choice?.message.tool_calls).toBeUndefined();

    // The client answers as legacy clients do: the assistant's function_call, then a function message.
    const second = await sdk.chat.completions.create({
      model: DEFAULT_VLLM_MODEL,
      messages: [{ role: "user", content: "Weather in Taipei?" }, { role: "assistant", content: null, function_call: choice!.message.function_call! }, { role: "function", name: "get_weather", content: "25°C, sunny" }],
      functions: [LEGACY_WEATHER],
    });
    expect(second.choices[0]?.finish_reason).toBe("stop");
    expect(second.choices[0]?.message.content).toBe("It is 25°C in Taipei.");
    const history = harness.upstream.chatRequests[1]?.body.messages as Array<Record<string, unknown>>;
    const assistant = history.find((message) => message.role === "assistant") as { tool_calls: Array<{ id: string; function: unknown }> };
    expect(assistant.tool_calls.map((call) => call.function)).toEqual([{ name: "get_weather", arguments: '{"city":"Taipei"}' }]);
    expect(history.find((message) => message.role === "tool")).toMatchObject({ tool_call_id: assistant.tool_calls[0]?.id, content: "25°C, sunny" });
  });

  it("streams a client function's call as delta.function_call with finish_reason function_call", async () => {
    harness = await startHarness({ replies: [{ toolCalls: [{ name: "get_weather", arguments: { city: "Taipei" } }] }] });
    const stream = await client(harness).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [{ role: "user", content: "Weather in Taipei?" }], functions: [LEGACY_WEATHER], function_call: "auto", stream: true });
    const calls: unknown[] = [];
    const finishes: string[] = [];
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        expect(choice.delta.tool_calls).toBeUndefined();
        if (choice.delta.function_call) calls.push(choice.delta.function_call);
        if (choice.finish_reason) finishes.push(choice.finish_reason);
      }
    }
    expect(calls).toEqual([{ name: "get_weather", arguments: '{"city":"Taipei"}' }]);
    expect(finishes).toEqual(["function_call"]);
    expect(harness.upstream.chatRequests[0]?.body.tool_choice).toBe("auto");
  });

  it("refuses tools with functions, and a function message that answers no call, with a 400 naming the field", async () => {
    harness = await startHarness({ replies: [{ text: "unused" }] });
    const sdk = client(harness);
    const tool = { type: "function" as const, function: LEGACY_WEATHER };
    await expect(sdk.chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: ASK, functions: [LEGACY_WEATHER], tools: [tool] })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("functions: send either tools or the legacy functions, not both"),
    });
    await expect(sdk.chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: ASK, function_call: "auto", tool_choice: "auto" })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("function_call: send either tool_choice or the legacy function_call, not both"),
    });
    const orphan = sdk.chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages: [...ASK, { role: "function", name: "get_weather", content: "25°C" }], functions: [LEGACY_WEATHER] });
    await expect(orphan).rejects.toMatchObject({ status: 400, message: expect.stringContaining('messages[1]: function message "get_weather" answers no function_call of an earlier assistant message') });
    expect(harness.upstream.chatRequests).toHaveLength(0);
  });

  it("/v1/models keeps the upstream's fields, max_model_len among them", async () => {
    harness = await startHarness({ aliases: { fast: DEFAULT_VLLM_MODEL } });
    const response = await fetch(`${harness.baseURL}/models`);
    const { data } = (await response.json()) as { data: Array<Record<string, unknown>> };
    expect(data.find((model) => model.id === DEFAULT_VLLM_MODEL)).toMatchObject({ object: "model", owned_by: "vllm", max_model_len: 32768, root: DEFAULT_VLLM_MODEL });
    expect(data.find((model) => model.id === "fast")).toMatchObject({ max_model_len: 32768, root: DEFAULT_VLLM_MODEL });
  });

  it("routes a path as a URL resolves it: with a query or dot segments the same route, escaped or with a trailing slash none", async () => {
    harness = await startHarness({});
    const { hostname, port } = new URL(harness.baseURL);
    // node:http sends the path as written (fetch would resolve the dot segments itself).
    const status = (path: string) =>
      new Promise<number>((resolve, reject) => {
        request({ hostname, port, path }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on("error", reject)
          .end();
      });
    for (const path of ["/v1/models?limit=1", "/v1/x/../models", "/v1/./models"]) expect([path, await status(path)]).toEqual([path, 200]);
    for (const path of ["/v1/%6Dodels", "/v1/models/", "//v1/models"]) expect([path, await status(path)]).toEqual([path, 404]);
  });
});
