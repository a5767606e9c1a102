import { describe, expect, it } from "vitest";
import { LlmError } from "../../src/llm/errors.js";
import { retryBeforeOutput } from "../../src/llm/retry.js";
import type { StreamEvent } from "../../src/llm/types.js";

const URL = "http://127.0.0.1:1/v1";
const text = (t: string): StreamEvent => ({ type: "text-delta", text: t });
const overloaded = () => new LlmError("http", "HTTP 503", { status: 503, url: URL });

/** Attempts that each fail, or stream their events, and say whether they were closed. */
function attempts(plans: (StreamEvent[] | Error)[], check: (event: StreamEvent) => void = () => undefined) {
  const closed: boolean[] = [];
  let made = 0;
  const next = () => {
    const index = made++;
    const plan = plans[index] as StreamEvent[] | Error;
    closed[index] = false;
    const events = (async function* () {
      try {
        if (plan instanceof Error) throw plan;
        for (const event of plan) yield event;
      } finally {
        closed[index] = true;
      }
    })();
    return { events, check };
  };
  return { next, closed, made: () => made };
}

async function collect(events: AsyncIterable<StreamEvent>, upTo = Infinity): Promise<StreamEvent[]> {
  const seen: StreamEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    if (seen.length >= upTo) break;
  }
  return seen;
}

describe("retryBeforeOutput", () => {
  it("announces a retry of a failure before output, then passes the next attempt's events on", async () => {
    const plan = attempts([overloaded(), [text("a"), text("b")]]);
    const events = await collect(retryBeforeOutput(plan.next, { baseDelayMs: 1 }, URL));
    expect(events).toEqual([expect.objectContaining({ type: "retry", attempt: 1, maxRetries: 2, reason: "HTTP 503" }), text("a"), text("b")]);
    expect(plan.made()).toBe(2);
  });

  it("closes the attempt when the reader stops early", async () => {
    const plan = attempts([[text("a"), text("b"), text("c")]]);
    expect(await collect(retryBeforeOutput(plan.next, {}, URL), 1)).toEqual([text("a")]);
    expect(plan.closed).toEqual([true]);
  });

  it("throws what check refuses, closing the attempt, and retries nothing once output passed", async () => {
    const refusal = overloaded();
    const plan = attempts([[text("a"), text("too much")]], (event) => {
      if (event.type === "text-delta" && event.text === "too much") throw refusal;
    });
    const seen: StreamEvent[] = [];
    await expect(
      (async () => {
        for await (const event of retryBeforeOutput(plan.next, { baseDelayMs: 1 }, URL)) seen.push(event);
      })(),
    ).rejects.toBe(refusal);
    expect(seen).toEqual([text("a")]);
    expect(plan.closed).toEqual([true]);
    expect(plan.made()).toBe(1);
  });

  it("stops waiting to retry when the signal aborts, and makes no other attempt", async () => {
    const plan = attempts([overloaded(), [text("never")]]);
    const controller = new AbortController();
    const events = retryBeforeOutput(plan.next, { baseDelayMs: 60_000 }, URL, controller.signal);
    expect((await events.next()).value).toMatchObject({ type: "retry" });
    const waiting = events.next();
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: "aborted" });
    expect(await events.next()).toEqual({ done: true, value: undefined });
    expect(plan.made()).toBe(1);
  });

  it("gives up after maxRetries and throws the last failure", async () => {
    const last = overloaded();
    const plan = attempts([overloaded(), last]);
    const seen: StreamEvent[] = [];
    await expect(
      (async () => {
        for await (const event of retryBeforeOutput(plan.next, { maxRetries: 1, baseDelayMs: 1 }, URL)) seen.push(event);
      })(),
    ).rejects.toBe(last);
    expect(seen.map((event) => event.type)).toEqual(["retry"]);
  });
});
