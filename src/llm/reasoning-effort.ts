import type { GenerationSettings } from "./types.js";

/** Thinking budgets in tokens for OpenAI's effort levels, per provider that takes a budget instead. */
export interface EffortBudgets {
  low: number;
  medium: number;
  high: number;
}

/**
 * The thinking an OpenAI-style `reasoning_effort` asks of a provider that takes a token budget
 * instead (Anthropic, Gemini), so a client of the gateway's chat completions or Responses API
 * can turn thinking on there as it would on OpenAI: "none" turns it off, "minimal" is "low", an
 * effort above "high" is "high". A request's own thinking setting wins.
 */
export function effortThinking(request: GenerationSettings, budgets: EffortBudgets): GenerationSettings["thinking"] {
  const effort = request.reasoningEffort;
  if (request.thinking || effort === undefined) return request.thinking;
  if (effort === "none") return { enabled: false };
  const level = effort === "minimal" ? "low" : effort === "low" || effort === "medium" ? effort : "high";
  return { enabled: true, budgetTokens: budgets[level] };
}
