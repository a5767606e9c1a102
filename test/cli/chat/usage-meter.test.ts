import { describe, expect, it } from "vitest";
import type { AgentEvent, TurnResult } from "../../../src/agent/events.js";
import { gaugeText, shortTokens, usageReport, UsageMeter } from "../../../src/cli/chat/usage-meter.js";
import type { ListedModel } from "../../../src/llm/discovery.js";
import { errorAdvice, turnUsageItems } from "../../../src/cli/ui/usage-items.js";

const usage = (inputTokens: number, outputTokens: number): AgentEvent => ({ type: "usage", usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens } });
const turnEnd = (inputTokens: number, outputTokens: number, durationMs = 1000): AgentEvent => ({
  type: "turn-end",
  turn: { usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens }, durationMs } as TurnResult,
});

function meterFor(listing: () => Promise<readonly ListedModel[]>, model = { id: "m" }) {
  let asked = 0;
  const meter = new UsageMeter(
    () => model.id,
    () => {
      asked += 1;
      return listing();
    },
  );
  return { meter, asked: () => asked };
}

describe("the context gauge", () => {
  it("measures the last request (its prompt and answer) against the length the server lists for the model in use", async () => {
    const { meter, asked } = meterFor(async () => [{ id: "other", contextLength: 4096 }, { id: "m", contextLength: 32768 }]);
    await meter.learnContextLength();
    await meter.learnContextLength();
    expect(asked()).toBe(1);
    meter.observe(usage(1000, 100));
    meter.observe(usage(12000, 300));
    meter.observe(turnEnd(13000, 400));
    expect(meter.gauge()).toEqual({ used: 12300, limit: 32768, share: 12300 / 32768 });
    expect(gaugeText(meter.gauge()!)).toBe("context 12.3k/32.8k (38%)");
  });

  it("shows no gauge when the server does not list a length, or cannot be asked", async () => {
    for (const listing of [async () => [{ id: "m" }], async () => [{ id: "not-m", contextLength: 8192 }], () => Promise.reject(new Error("HTTP 404"))]) {
      const { meter } = meterFor(listing);
      await meter.learnContextLength();
      meter.observe(usage(100, 10));
      expect(meter.contextLength).toBeUndefined();
      expect(meter.gauge()).toBeUndefined();
      expect(turnUsageItems("100 in · 10 out · 1.0 s", meter)).toEqual([{ kind: "usage", text: "100 in · 10 out · 1.0 s" }]);
    }
  });

  it("asks again for a model switched to", async () => {
    const model = { id: "m" };
    const { meter, asked } = meterFor(async () => [{ id: "m", contextLength: 8192 }, { id: "n", contextLength: 4096 }], model);
    await meter.learnContextLength();
    expect(meter.contextLength).toBe(8192);
    model.id = "n";
    expect(meter.contextLength).toBeUndefined();
    await meter.learnContextLength();
    expect(meter.contextLength).toBe(4096);
    expect(asked()).toBe(2);
  });

  it("turns yellow past 80 % and warns once past 90 %, again only after the conversation shrank", async () => {
    const { meter } = meterFor(async () => [{ id: "m", contextLength: 10000 }]);
    await meter.learnContextLength();
    meter.observe(usage(7000, 100));
    expect(turnUsageItems("line", meter)).toEqual([{ kind: "usage", text: "line · context 7.1k/10k (71%)" }]);
    meter.observe(usage(8500, 100));
    expect(turnUsageItems("line", meter)).toEqual([{ kind: "usage", text: "line · context 8.6k/10k (86%)", high: true }]);
    meter.observe(usage(9100, 100));
    const near = turnUsageItems("line", meter);
    expect(near).toHaveLength(2);
    expect(near[1]).toMatchObject({ kind: "notice", tone: "warning" });
    expect((near[1] as { text: string }).text).toMatch(/92% of the model's context: \/compact .*\/clear/);
    meter.observe(usage(9300, 100));
    expect(turnUsageItems("line", meter)).toHaveLength(1);
    meter.conversationReplaced(500);
    expect(meter.gauge()?.used).toBe(500);
    meter.observe(usage(9500, 100));
    expect(turnUsageItems("line", meter)).toHaveLength(2);
  });
});

describe("/usage", () => {
  it("sums the session's turns and shows the last prompt against the context", async () => {
    const { meter } = meterFor(async () => [{ id: "m", contextLength: 32768 }]);
    await meter.learnContextLength();
    meter.observe(usage(1200, 30));
    meter.observe(turnEnd(1200, 30, 1500));
    meter.observe(usage(1300, 40));
    meter.observe(usage(2000, 60));
    meter.observe(turnEnd(3300, 100, 2250));
    expect(meter.totals).toEqual({ turns: 2, inputTokens: 4500, outputTokens: 130, durationMs: 3750 });
    const report = usageReport(meter);
    expect(report).toContain("turns        2");
    expect(report).toContain("4,500 in · 130 out");
    expect(report).toContain("last prompt  2,000 tokens");
    expect(report).toContain("context      2,060 of 32,768 tokens (6%)");
    expect(report).toContain("3.8 s in turns");
  });

  it("says the context length is unknown rather than guess it", async () => {
    const { meter } = meterFor(async () => [{ id: "m" }]);
    await meter.learnContextLength();
    expect(usageReport(meter)).toMatch(/context\s+length unknown/);
  });
});

describe("token counts at a glance", () => {
  it("shortens thousands", () => {
    expect([842, 1000, 12345, 32768, 99999, 131072].map(shortTokens)).toEqual(["842", "1k", "12.3k", "32.8k", "100k", "131k"]);
  });
});

describe("advice after a failed turn", () => {
  it("says what to do when the conversation no longer fits, and nothing for other failures", () => {
    expect(errorAdvice({ code: "context-length", message: "…" })).toEqual({
      kind: "notice",
      tone: "warning",
      text: "the conversation no longer fits the model's context: /compact to continue from a summary of it, or /clear to start afresh",
    });
    expect(errorAdvice({ code: "http", message: "HTTP 500" })).toBeUndefined();
  });
});
