import { randomUUID } from "node:crypto";

/** An id for a tool call the model sent without one, in the shape OpenAI's ids have. */
export function newCallId(): string {
  return `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
}
