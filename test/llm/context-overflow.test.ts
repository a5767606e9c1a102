import { describe, expect, it } from "vitest";
import { parseContextOverflow } from "../../src/llm/context-overflow.js";

describe("reading a server's refusal of a request longer than the context", () => {
  it("reads each server's wording, with the numbers it gives", () => {
    const cases: Array<[string, ReturnType<typeof parseContextOverflow>]> = [
      [
        "This model's maximum context length is 32768 tokens. However, you requested 33800 tokens (31800 in the messages, 2000 in the completion). Please reduce the length of the messages or completion.",
        { limit: 32768, requested: 33800 },
      ],
      ["This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens. Please reduce the length of the messages.", { limit: 8192, requested: 9001 }],
      [
        "'max_tokens' or 'max_completion_tokens' is too large: 2000. This model's maximum context length is 32768 tokens and your request has 31000 input tokens (2000 > 32768 - 31000).",
        { limit: 32768, requested: 31000 },
      ],
      ["The decoder prompt (length 40000) is longer than the maximum model length of 32768. Make sure that `max_model_len` is no smaller than the number of text tokens.", { limit: 32768, requested: 40000 }],
      ["The input (40000 tokens) is longer than the model's context length (32768 tokens).", { limit: 32768, requested: 40000 }],
      ["prompt is too long: 210000 tokens > 200000 maximum", { limit: 200000, requested: 210000 }],
      ["The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", { limit: 1048576, requested: 1200000 }],
      ["the request exceeds the available context size, try increasing it", {}],
      ["Your input exceeds the context window of this model. Please adjust your input and try again.", {}],
    ];
    for (const [message, expected] of cases) expect(parseContextOverflow(message), message).toEqual(expected);
  });

  it("does not read other refusals as an overflow", () => {
    for (const message of ['"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', "The model `nope` does not exist.", "max_tokens must be at least 1, got 0."]) {
      expect(parseContextOverflow(message), message).toBeUndefined();
    }
  });
});
