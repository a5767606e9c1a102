import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_VLLM_MODEL, type VllmReply } from "../support/vllm-server.js";
import { startHarness, type Harness } from "./harness.js";

/** Seed 003's four test cases, each asked through the gateway with the openai SDK, in native and prompt modes. */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

type Messages = OpenAI.ChatCompletionMessageParam[];

function toolResults(h: Harness): string {
  // Natively the results come as tool messages; in prompt mode, as text in a user message.
  return JSON.stringify(h.upstream.chatRequests.map((request) => request.body.messages.at(-1)));
}

describe.each([
  { mode: "native", toolsEnabled: true },
  { mode: "prompt", toolsEnabled: false },
] as const)("seed 003 through the gateway, $mode mode", ({ mode, toolsEnabled }) => {
  const call = (args: Record<string, unknown>): VllmReply =>
    mode === "native" ? { toolCalls: [{ name: "get-date", arguments: args }] } : { text: `<tool_call>\n${JSON.stringify({ name: "get-date", arguments: args })}\n</tool_call>` };

  async function ask(messages: Messages): Promise<string> {
    const completion = await new OpenAI({ baseURL: harness!.baseURL, apiKey: "none", maxRetries: 0 }).chat.completions.create({ model: DEFAULT_VLLM_MODEL, messages });
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    return completion.choices[0]?.message.content ?? "";
  }

  it("test 1: the date, with get-date in date-only format", async () => {
    harness = await startHarness({ replies: [call({ format: "date-only" }), { text: "今天是 2026 年。" }], toolsEnabled });
    expect(await ask([{ role: "user", content: "現在是幾年幾月幾號？" }])).toBe("今天是 2026 年。");
    expect(toolResults(harness)).toContain(new Date().toLocaleDateString("en-US"));
  });

  it("test 2: the time in New York, with the time zone", async () => {
    harness = await startHarness({ replies: [call({ timezone: "America/New_York", format: "time-only" }), { text: "紐約現在是早上。" }], toolsEnabled });
    expect(await ask([{ role: "user", content: "紐約現在幾點？" }])).toBe("紐約現在是早上。");
    expect(toolResults(harness)).toMatch(/\d{1,2}:\d{2}:\d{2}/);
  });

  it("test 3: two turns; the client carries the conversation, the second call adds Taipei's zone", async () => {
    harness = await startHarness({
      replies: [call({ format: "time-only" }), { text: "現在是十點。" }, call({ format: "time-only", timezone: "Asia/Taipei" }), { text: "台北現在是晚上十點。" }],
      toolsEnabled,
    });
    const messages: Messages = [{ role: "user", content: "現在是幾點？" }];
    const first = await ask(messages);
    messages.push({ role: "assistant", content: first }, { role: "user", content: "那台北呢？" });
    expect(await ask(messages)).toBe("台北現在是晚上十點。");
    // The second turn's first model request saw the first answer: the gateway kept nothing, the client sent it.
    const secondTurn = JSON.stringify(harness.upstream.chatRequests.at(-2)?.body.messages);
    expect(secondTurn).toContain("現在是十點。");
    expect(secondTurn).toContain("那台北呢？");
  });

  it("test 4: an invalid time zone comes back as a tool error the model explains", async () => {
    harness = await startHarness({ replies: [call({ timezone: "Mars/Olympus_Mons" }), { text: "抱歉，Mars/Olympus_Mons 不是有效的時區。" }], toolsEnabled });
    expect(await ask([{ role: "user", content: "火星現在幾點？" }])).toBe("抱歉，Mars/Olympus_Mons 不是有效的時區。");
    expect(toolResults(harness)).toContain("Unknown timezone");
  });
});
