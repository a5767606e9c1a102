/**
 * The raw argument text of an earlier tool call, as a provider wants it replayed in the
 * history. A call the model botched (not JSON) is already answered by an error result
 * telling it so; the history carries `{}` in its place, because the servers refuse it
 * otherwise (vLLM runs json.loads on it to render its chat template and answers 400;
 * Anthropic and Gemini take objects only).
 */
export function argumentsObject(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The same for wire formats that carry the arguments as JSON text. */
export function argumentsText(raw: string): string {
  try {
    JSON.parse(raw);
    return raw;
  } catch {
    return "{}";
  }
}
