/**
 * A model server's refusal of a request longer than the model's context, in its own words.
 * Each server words it differently; the numbers are kept when it gives them.
 */
export interface ContextOverflow {
  /** The model's context length, in tokens. */
  limit?: number;
  /** How many tokens the request came to (or its prompt alone, as the server counted). */
  requested?: number;
}

type Reading = { pattern: RegExp; limit?: number; requested?: number };

const READINGS: readonly Reading[] = [
  // vLLM and OpenAI: "This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (…)"
  // ("your messages resulted in 33000 tokens"; newer vLLM: "and your request has 31000 input tokens").
  { pattern: /maximum context length is (\d+) tokens[^]*?(?:requested|resulted in|request has) (\d+)(?: input)? tokens/i, limit: 1, requested: 2 },
  { pattern: /maximum context length is (\d+) tokens/i, limit: 1 },
  // vLLM's engine: "The decoder prompt (length 40000) is longer than the maximum model length of 32768."
  { pattern: /prompt \(length (\d+)\) is longer than the maximum model length of (\d+)/i, requested: 1, limit: 2 },
  // SGLang: "The input (40000 tokens) is longer than the model's context length (32768 tokens)."
  { pattern: /input \((\d+) tokens\) is longer than the model's context length \((\d+) tokens\)/i, requested: 1, limit: 2 },
  // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
  { pattern: /prompt is too long: (\d+) tokens > (\d+) maximum/i, requested: 1, limit: 2 },
  // Gemini: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
  { pattern: /input token count \(?(\d+)\)? exceeds the maximum number of tokens allowed \(?(\d+)\)?/i, requested: 1, limit: 2 },
  // llama.cpp: "the request exceeds the available context size, try increasing it"; OpenAI's newer wording.
  { pattern: /exceeds the available context size|exceeds the context window|context_length_exceeded/i },
];

/** What a server's error message says of the context overflow, or undefined when it is about something else. */
export function parseContextOverflow(message: string): ContextOverflow | undefined {
  for (const { pattern, limit, requested } of READINGS) {
    const match = pattern.exec(message);
    if (!match) continue;
    const number = (group: number | undefined) => (group === undefined ? undefined : Number(match[group]));
    const found: ContextOverflow = {};
    const limitTokens = number(limit);
    const requestedTokens = number(requested);
    if (limitTokens !== undefined) found.limit = limitTokens;
    if (requestedTokens !== undefined) found.requested = requestedTokens;
    return found;
  }
  return undefined;
}
