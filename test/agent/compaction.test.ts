import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { conversationText } from "../../src/agent/compaction.js";
import { httpError, LlmError } from "../../src/llm/errors.js";
import type { Message } from "../../src/llm/types.js";
import { FakeHost, FakeModel, allowAll, calls, dateSchema, text, textResult } from "./fakes.js";

const OVERFLOW = "This model's maximum context length is 4096 tokens. However, you requested 9000 tokens (9000 in the messages, 0 in the completion).";

function dateHost(): FakeHost {
  return new FakeHost({ "get-date": { schema: dateSchema, run: () => textResult("2026-01-07") } });
}

async function agentAfterOneToolTurn(model: FakeModel): Promise<Agent> {
  const agent = new Agent({ approval: allowAll, model, tools: dateHost(), systemPrompt: "Be brief." });
  await agent.send("What is the date?");
  return agent;
}

describe("compacting the conversation", () => {
  it("asks for a summary without tools and continues from it, the old messages gone", async () => {
    const model = new FakeModel([calls(["c1", "get-date", "{}"]), text("It is 7 January 2026."), text("The user asked the date; get-date said 2026-01-07."), text("Next.")]);
    const agent = await agentAfterOneToolTurn(model);
    expect(agent.messages).toHaveLength(4);

    const compaction = await agent.compact();
    const summaryRequest = model.requests[2]!;
    expect(summaryRequest.tools).toBeUndefined();
    const asked = summaryRequest.messages.map((message) => message.content).join("\n");
    expect(asked).toContain("[user]\nWhat is the date?");
    expect(asked).toContain("[assistant called get-date with {}]");
    expect(asked).toContain("[get-date returned]\n2026-01-07");
    expect(asked).toContain("[assistant]\nIt is 7 January 2026.");
    expect(compaction).toMatchObject({ summary: "The user asked the date; get-date said 2026-01-07.", messagesBefore: 4, truncated: false, usage: { outputTokens: 5 } });
    expect(agent.messages).toEqual(compaction.messages);
    expect(agent.messages.map((message) => message.role)).toEqual(["user", "assistant"]);

    await agent.send("And tomorrow?");
    const next = model.requests[3]!;
    expect(next.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(next.messages[1]?.content).toContain("The user asked the date; get-date said 2026-01-07.");
    expect(JSON.stringify(next.messages)).not.toContain("get-date returned");
    expect(next.tools?.map((tool) => tool.name)).toEqual(["get-date"]);
  });

  it("leaves the oldest part out when the conversation does not fit the context, and says so", async () => {
    const overflow = httpError(400, OVERFLOW, "http://127.0.0.1:8000/v1");
    const model = new FakeModel([text("first answer"), overflow, overflow, text("summary of the recent part")]);
    const agent = new Agent({ approval: allowAll, model, tools: dateHost(), messages: [{ role: "user", content: "x".repeat(10_000) }, { role: "assistant", content: "ok" }] });
    await agent.send("recent question");
    const compaction = await agent.compact();
    expect(compaction.truncated).toBe(true);
    const sizes = model.requests.slice(1).map((request) => String(request.messages.at(-1)?.content).length);
    expect(sizes[1]).toBeLessThan(sizes[0]!);
    expect(sizes[2]).toBeLessThan(sizes[1]!);
    const last = String(model.requests.at(-1)?.messages.at(-1)?.content);
    expect(last).toContain("earliest part of the conversation is left out");
    expect(last).toContain("[user]\nrecent question");
  });

  it("keeps the conversation when the model gives no summary or refuses", async () => {
    for (const reply of [text("   "), new LlmError("http", "HTTP 500")]) {
      const model = new FakeModel([text("hello"), reply]);
      const agent = new Agent({ approval: allowAll, model, tools: dateHost() });
      await agent.send("hi");
      const before = [...agent.messages];
      await expect(agent.compact()).rejects.toBeInstanceOf(LlmError);
      expect(agent.messages).toEqual(before);
    }
  });

  it("gives up after a few halvings when nothing fits", async () => {
    const overflow = httpError(400, OVERFLOW, "http://127.0.0.1:8000/v1");
    const model = new FakeModel([text("hello"), overflow, overflow, overflow, overflow, overflow]);
    const agent = new Agent({ approval: allowAll, model, tools: dateHost() });
    await agent.send("hi");
    const error = await agent.compact().catch((caught: unknown) => caught);
    expect((error as LlmError).code).toBe("context-length");
    expect(model.requests).toHaveLength(5);
  });
});

describe("the conversation as text for the summarizer", () => {
  it("cuts long tool results to their head and describes images", () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "look: " }, { type: "image", data: "AAAA", mimeType: "image/png" }] },
      { role: "assistant", content: "", toolCalls: [{ id: "1", name: "read", arguments: '{"path":"/a"}' }] },
      { role: "tool", toolCallId: "1", name: "read", content: "y".repeat(5000) },
      { role: "tool", toolCallId: "2", name: "write", content: "denied", isError: true },
    ];
    const shown = conversationText(messages);
    expect(shown).toContain("[user]\nlook: [image image/png]");
    expect(shown).toContain('[assistant called read with {"path":"/a"}]');
    expect(shown).not.toContain("[assistant]\n");
    expect(shown).toContain("… (1000 more characters)");
    expect(shown).toContain("[write failed]\ndenied");
  });
});
