import { describe, expect, it } from "vitest";
import {
  createToolCallParser,
  parseToolCalls,
  type ParsedMessage,
  type ToolCallParserEvent,
  type ToolCallParserOptions,
} from "../../src/toolcall/parser.js";
import { loadCorpus, normalizeSpace } from "./fixture-corpus.js";
import { randomChunks } from "./random-chunks.js";

function collect(events: ToolCallParserEvent[]): ParsedMessage {
  const result: ParsedMessage = { calls: [], content: "", reasoning: "" };
  for (const e of events) {
    if (e.type === "text") result.content += e.text;
    else if (e.type === "reasoning") result.reasoning += e.text;
    else result.calls.push({ name: e.name, arguments: e.arguments });
  }
  return result;
}

function streamed(deltas: string[], options: ToolCallParserOptions): ParsedMessage {
  const parser = createToolCallParser(options);
  const events = deltas.flatMap((d) => parser.push(d));
  return collect([...events, ...parser.end()]);
}

const corpus = loadCorpus();

describe("the fixture corpus", () => {
  it("holds cases from every format family, each naming its source", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(60);
    for (const c of corpus) expect(c.source.length).toBeGreaterThan(5);
    const files = new Set(corpus.map((c) => c.file));
    expect([...files].sort()).toEqual([
      "client-formats.json",
      "deepseek-dsml.json",
      "deepseek.json",
      "gemma.json",
      "glm.json",
      "granite-firefunction-command.json",
      "harmony.json",
      "hermes.json",
      "hunyuan.json",
      "json-in-text.json",
      "kimi-k3.json",
      "kimi.json",
      "lfm2.json",
      "llama-pythonic.json",
      "llama.json",
      "minimax-m3.json",
      "minimax.json",
      "mistral.json",
      "negative.json",
      "olmo3.json",
      "qwen3-coder.json",
      "repair.json",
      "seed-oss.json",
      "step3.json",
      "xlam.json",
    ]);
  });
});

describe.each(corpus.map((c) => [`${c.file}: ${c.name}`, c] as const))("%s", (_label, c) => {
  const options: ToolCallParserOptions = { tools: c.tools, startInReasoning: c.startInReasoning };
  const whole = streamed([c.text], options);

  it("gives the expected calls, content and reasoning", () => {
    expect(whole.calls).toEqual(c.calls);
    expect(normalizeSpace(whole.content)).toBe(normalizeSpace(c.content));
    if (c.reasoning !== undefined) expect(normalizeSpace(whole.reasoning)).toBe(normalizeSpace(c.reasoning));
  });

  it("gives exactly the same result fed one character at a time", () => {
    expect(streamed([...c.text], options)).toEqual(whole);
    expect(streamed(c.text.split(""), options)).toEqual(whole);
  });

  it("gives exactly the same result in 40 random chunkings", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const deltas = randomChunks(c.text, seed * 7919, seed % 2 === 0 ? 4 : 17);
      expect(streamed(deltas, options), `seed ${seed}`).toEqual(whole);
    }
  });

  it("gives the same result through parseToolCalls", () => {
    expect(parseToolCalls(c.text, options)).toEqual(whole);
  });
});

describe("streaming behaviour", () => {
  it("emits plain text at once, with no delay", () => {
    const parser = createToolCallParser({ tools: ["get_time"] });
    expect(parser.push("Hello, wor")).toEqual([{ type: "text", text: "Hello, wor" }]);
    expect(parser.push("ld. 3 < 4")).toEqual([{ type: "text", text: "ld. 3 < 4" }]);
  });

  it("holds back only a suffix that could still begin a call", () => {
    const parser = createToolCallParser({ tools: ["get_time"] });
    expect(parser.push("Let me check. <tool_c")).toEqual([{ type: "text", text: "Let me check. " }]);
    expect(parser.push("at")).toEqual([{ type: "text", text: "<tool_cat" }]);
  });

  it("emits a call as soon as its JSON is complete, before the closing tag arrives", () => {
    const parser = createToolCallParser({ tools: ["get_time"] });
    expect(parser.push('<tool_call>\n{"name": "get_time", "arguments": {"timezone": "UTC"')).toEqual([]);
    expect(parser.push("}}")).toEqual([{ type: "tool-call", name: "get_time", arguments: { timezone: "UTC" } }]);
    expect(parser.push("\n</tool_call>")).toEqual([]);
    expect(parser.end()).toEqual([]);
  });

  it("drops LFM2's echo of a call and gives back text after it as soon as it differs", () => {
    const parser = createToolCallParser({ tools: ["get_weather"] });
    const call = '[get_weather(location="Paris")]';
    expect(parser.push(`<|tool_call_start|>${call}<|tool_call_end|>`)).toEqual([
      { type: "tool-call", name: "get_weather", arguments: { location: "Paris" } },
    ]);
    expect(parser.push(`${call}<|tool_call_end|>`)).toEqual([]);
    expect(parser.push("[get_weather")).toEqual([]);
    expect(parser.push("] said")).toEqual([{ type: "text", text: "[get_weather] said" }]);
    expect(parser.end()).toEqual([]);
  });

  it("streams reasoning as reasoning events and does not execute a call written there", () => {
    const parser = createToolCallParser({ tools: ["get_time"] });
    const events = [
      ...parser.push("<think>I could write <tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call> but"),
      ...parser.push(" I will not.</think>It is noon."),
      ...parser.end(),
    ];
    expect(events.some((e) => e.type === "tool-call")).toBe(false);
    expect(collect(events).reasoning).toBe('I could write <tool_call>{"name": "get_time", "arguments": {}}</tool_call> but I will not.');
    expect(collect(events).content).toBe("It is noon.");
  });

  it("gives the held-back half tag back as text at the end of the stream", () => {
    const parser = createToolCallParser();
    expect(parser.push("Done <|python_t")).toEqual([{ type: "text", text: "Done " }]);
    expect(parser.end()).toEqual([{ type: "text", text: "<|python_t" }]);
  });

  it("always gives arguments as an object", () => {
    const { calls } = parseToolCalls('<tool_call>{"name": "get_time"}</tool_call>');
    expect(calls).toEqual([{ name: "get_time", arguments: {} }]);
  });

  it("types Qwen3-Coder XML parameters by the tool's schema", () => {
    const text = "<tool_call>\n<function=add>\n<parameter=a>\n2\n</parameter>\n<parameter=label>\n7\n</parameter>\n</function>\n</tool_call>";
    const tools = [
      { name: "add", parameters: { type: "object", properties: { a: { type: "number" }, label: { type: "string" } } } },
    ];
    expect(parseToolCalls(text, { tools }).calls).toEqual([{ name: "add", arguments: { a: 2, label: "7" } }]);
  });

  it("reads a Qwen3-Coder call in the deltas of vLLM's speculative decoding, three parameters in one delta", () => {
    // vLLM tests/tool_parsers/test_qwen3coder_tool_parser.py (test_streaming_multi_param_single_chunk)
    const deltas = [
      "<tool_call>",
      "\n<function=get_current_weather>",
      "\n",
      "<parameter=city>\nDallas\n</parameter>\n<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>",
      "\n</function>",
      "\n</tool_call>",
    ];
    const parser = createToolCallParser({ tools: ["get_current_weather"] });
    const events = deltas.map((d) => parser.push(d));
    expect(events.slice(0, 4).flat()).toEqual([]);
    expect(events[4]).toEqual([]);
    expect([...(events[5] ?? []), ...parser.end()]).toEqual([
      { type: "tool-call", name: "get_current_weather", arguments: { city: "Dallas", state: "TX", unit: "fahrenheit" } },
    ]);
  });

  it("streams an xml code block of real XML as it comes, not held back to its closing fence", () => {
    const parser = createToolCallParser({ tools: ["get_time"] });
    expect(collect(parser.push("Config:\n```xml\n<config>\n  <port>8080</port>")).content).toBe("Config:\n```xml\n<config>\n  <port>8080</port>");
    expect(collect([...parser.push("\n</config>\n```\nDone."), ...parser.end()]).content).toBe("\n</config>\n```\nDone.");
  });

  it("takes a single backtick as inline code up to the line's end only: a call on the next line is still read", () => {
    const text = 'An odd ` backtick, then <tool_call> shown\n<tool_call>{"name": "get_time", "arguments": {}}</tool_call>';
    const whole = streamed([text], { tools: ["get_time"] });
    expect(whole.calls).toEqual([{ name: "get_time", arguments: {} }]);
    expect(whole.content).toBe("An odd ` backtick, then <tool_call> shown\n");
    expect(streamed([...text], { tools: ["get_time"] })).toEqual(whole);
  });
});

describe("parseToolCalls", () => {
  it("sees that a message closing a reasoning block it never opened started inside one", () => {
    const result = parseToolCalls('Need the time.</think><tool_call>{"name": "get_time", "arguments": {}}</tool_call>');
    expect(result).toEqual({ calls: [{ name: "get_time", arguments: {} }], content: "", reasoning: "Need the time." });
  });

  it("does not execute a call that comes before that closing tag", () => {
    const result = parseToolCalls('<tool_call>{"name": "get_time", "arguments": {}}</tool_call></think>Fine.');
    expect(result.calls).toEqual([]);
    expect(result.content).toBe("Fine.");
  });

  it("keeps the text before, between and after calls", () => {
    const text =
      'First <tool_call>{"name": "a", "arguments": {}}</tool_call> then <tool_call>{"name": "b", "arguments": {}}</tool_call> last.';
    const result = parseToolCalls(text);
    expect(result.calls.map((c) => c.name)).toEqual(["a", "b"]);
    expect(result.content).toBe("First  then  last.");
  });
});
