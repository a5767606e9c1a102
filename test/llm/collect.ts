import type { StreamEvent, ToolCall } from "../../src/llm/types.js";

/** Everything a stream produced, gathered for assertions. */
export interface Collected {
  events: StreamEvent[];
  text: string;
  reasoning: string;
  calls: ToolCall[];
  finish: string | undefined;
}

export async function collect(stream: AsyncIterable<StreamEvent>): Promise<Collected> {
  const out: Collected = { events: [], text: "", reasoning: "", calls: [], finish: undefined };
  for await (const event of stream) {
    out.events.push(event);
    if (event.type === "text-delta") out.text += event.text;
    else if (event.type === "reasoning-delta") out.reasoning += event.text;
    else if (event.type === "tool-call") out.calls.push(event.call);
    else if (event.type === "finish") out.finish = event.reason;
  }
  return out;
}

/** The error a stream ends with (fails the test when it ends without one). */
export async function failure(stream: AsyncIterable<StreamEvent>): Promise<unknown> {
  try {
    for await (const _ of stream) void _;
  } catch (err) {
    return err;
  }
  throw new Error("the stream ended without an error");
}
