import { describe, expect, it } from "vitest";
import { chat as startChat, timeOnly, useChatTerminal, vllm } from "../../support/chat-terminal.js";
import type { Tmux } from "../../support/tmux.js";
import type { RecordedRequest, VllmReply, VllmServer, VllmServerOptions } from "../../support/vllm-server.js";

/**
 * `toolbridge chat` in a real terminal (tmux): what it says of tokens and the model's context
 * (the gauge, /usage, an overflow, /compact), /model against the server's list, and a retry.
 * Each test asserts on the screen and on what the scripted model server received.
 */

useChatTerminal();

/** The chat against a scripted vLLM with these replies and options. */
async function chat(options: VllmServerOptions & { replies: VllmReply[] }): Promise<{ s: VllmServer; t: Tmux }> {
  const { replies, ...rest } = options;
  const s = await vllm(replies, rest);
  return { s, t: await startChat(s) };
}

/** Waits for `pattern` in the screen read as one line: Ink wraps long lines at spaces. */
function waitForText(t: Tmux, pattern: RegExp, what: string): Promise<string> {
  return t.waitFor((screen) => pattern.test(flat(screen)), what).then(flat);
}
const flat = (screen: string): string => screen.replace(/\s+/g, " ");

async function say(t: Tmux, text: string): Promise<void> {
  await t.type(text);
  await t.press("Enter");
}

type WireMessage = { role: string; content: unknown };
const messagesOf = (request: RecordedRequest | undefined): WireMessage[] => (request?.body?.messages ?? []) as WireMessage[];
const usage = (prompt_tokens: number, completion_tokens: number) => ({ prompt_tokens, completion_tokens });

describe("toolbridge chat in a terminal: the context gauge and /usage", () => {
  it("names the config file in its banner, shows the context against vLLM's max_model_len after each turn, and warns once near the end", async () => {
    const { s, t } = await chat({
      maxModelLen: 1000,
      replies: [
        { text: "First.", usage: usage(700, 150) },
        { text: "Second.", usage: usage(900, 20) },
        { text: "Third.", usage: usage(930, 20) },
      ],
    });
    await waitForText(t, new RegExp(`config: ${timeOnly.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`), "the config file in the banner");
    await say(t, "one");
    await waitForText(t, /First\.[\s\S]*700 in · 150 out · [\d.]+ s · [\d.]+ tok\/s · context 850\/1k \(85%\)/, "the gauge after the first turn");
    expect(flat(await t.history())).not.toMatch(/fills \d+% of the model's context/);
    // Past 80 % the line is yellow (SGR 33), not dim (SGR 2).
    const styled = (await t.styledHistory()).split("\n").find((line) => line.includes("context 850/1k"));
    expect(styled).toMatch(/\x1b\[(?:[\d;]*;)?33(?:;[\d;]*)?m[^\x1b]*700 in/);
    expect(styled).not.toMatch(/\x1b\[(?:[\d;]*;)?2(?:;[\d;]*)?m[^\x1b]*700 in/);
    await say(t, "two");
    await waitForText(t, /context 920\/1k \(92%\) toolbridge: the conversation fills 92% of the model's context: \/compact to continue from a summary of it, or \/clear to start afresh/, "the warning");
    await say(t, "three");
    await waitForText(t, /context 950\/1k \(95%\)/, "the third gauge");
    expect(flat(await t.history()).match(/of the model's context: \/compact/g)).toHaveLength(1);

    await say(t, "/usage");
    await waitForText(t, /turns 3 tokens 2,530 in · 190 out last prompt 930 tokens context 950 of 1,000 tokens \(95%\) time [\d.]+ s in turns/, "the totals");
    // The length was asked of the server once, not per turn.
    expect(s.requests.filter((request) => request.path === "/v1/models").length).toBeLessThanOrEqual(2);
  });

  it("shows no gauge when the server does not list the context length", async () => {
    const { t } = await chat({ maxModelLen: null, replies: [{ text: "Fine.", usage: usage(700, 150) }] });
    await say(t, "one");
    await waitForText(t, /700 in · 150 out/, "the usage line");
    expect(flat(await t.history())).not.toMatch(/context \d/);
    // Below the gauge's yellow (there is none here) the line is dim.
    const styled = (await t.styledHistory()).split("\n").find((line) => line.includes("700 in"));
    expect(styled).toMatch(/\x1b\[(?:[\d;]*;)?2(?:;[\d;]*)?m[^\x1b]*700 in/);
    await say(t, "/usage");
    await waitForText(t, /context length unknown/, "the unknown length");
  });
});

describe("toolbridge chat in a terminal: when the conversation outgrows the context", () => {
  it("says to /compact or /clear when vLLM refuses the request for its length", async () => {
    const overflow =
      "This model's maximum context length is 1000 tokens. However, you requested 1200 tokens (1100 in the messages, 100 in the completion). Please reduce the length of the messages or completion.";
    const { s, t } = await chat({ replies: [{ kind: "error", status: 400, message: overflow }] });
    await say(t, "a long question");
    await waitForText(t, /the conversation no longer fits the model's context: \/compact to continue from a summary of it, or \/clear to start afresh/, "the advice");
    expect(flat(await t.history())).toMatch(/longer than the model's context of 1000 tokens \(1200 requested\)/);
    expect(s.chatRequests).toHaveLength(1);
  });

  it("/compact asks for a summary without tools, and the next turn carries the summary instead of the old messages", async () => {
    const { s, t } = await chat({
      replies: [
        { text: "It is Tuesday.", usage: usage(300, 5) },
        { text: "Noted, Oslo.", usage: usage(400, 6) },
        { text: "SUMMARY: the user asked the day (Tuesday) and lives in Oslo.", usage: usage(450, 14) },
        { text: "Wednesday, in Oslo.", usage: usage(120, 5) },
      ],
    });
    await say(t, "what day is it?");
    await waitForText(t, /It is Tuesday\./, "the first answer");
    await say(t, "I live in Oslo");
    await waitForText(t, /Noted, Oslo\./, "the second answer");
    await say(t, "/compact");
    await waitForText(t, /compacted: 4 messages → 2, 406 → 14 tokens/, "what compacting did");
    expect(flat(await t.history())).toMatch(/SUMMARY: the user asked the day/);

    const summaryRequest = s.chatRequests[2];
    expect(summaryRequest?.body?.tools).toBeUndefined();
    expect(JSON.stringify(messagesOf(summaryRequest))).toContain("I live in Oslo");
    expect(s.chatRequests[1]?.body?.tools).toBeDefined();

    await say(t, "and tomorrow?");
    await waitForText(t, /Wednesday, in Oslo\./, "the answer after compacting");
    const next = messagesOf(s.chatRequests[3]);
    expect(next.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(String(next[0]?.content)).toContain("SUMMARY: the user asked the day (Tuesday) and lives in Oslo.");
    expect(next[2]?.content).toBe("and tomorrow?");
    expect(JSON.stringify(next)).not.toContain("what day is it?");
  });
});

describe("toolbridge chat in a terminal: cancelling /compact", () => {
  it("cancels a /compact waiting on the model with Esc, and keeps the conversation", async () => {
    const { s, t } = await chat({ replies: [{ text: "It is Tuesday." }, { kind: "hang" }, { text: "Still here." }] });
    await say(t, "what day is it?");
    await waitForText(t, /It is Tuesday\./, "the first answer");
    await say(t, "/compact");
    await waitForText(t, /asking the model for a summary of the conversation… \(Esc cancels\)/, "the summary request");
    await t.until(() => s.chatRequests.length === 2, "the summary request to reach the server");
    await t.press("Escape");
    await waitForText(t, /compacting cancelled; the conversation is kept as it was/, "the cancellation");
    await say(t, "and now?");
    await waitForText(t, /Still here\./, "the next answer");
    const next = messagesOf(s.chatRequests[2]);
    expect(next.map((message) => message.content)).toEqual(["what day is it?", "It is Tuesday.", "and now?"]);
  });
});

describe("toolbridge chat in a terminal: /model", () => {
  it("lists the server's models with the current one marked, refuses one it does not list, and switches to one it does", async () => {
    const { s, t } = await chat({ otherModels: ["small-model"], replies: [{ text: "From small." }] });
    await say(t, "/model");
    await waitForText(t, /● Qwen\/Qwen3-8B context 32\.8k small-model context 32\.8k/, "the listed models");
    await say(t, "/model small");
    await waitForText(t, /does not serve "small"; it lists Qwen\/Qwen3-8B, small-model\./, "the refusal");
    await say(t, "/model Small-Model");
    await waitForText(t, /does not serve "Small-Model"; did you mean "small-model"\?/, "the suggestion");
    await say(t, "/model small-model");
    await waitForText(t, /now talking to small-model (?!\(unchecked)/, "the switch");
    await say(t, "hello");
    await waitForText(t, /From small\./, "the answer");
    expect(s.chatRequests.map((request) => request.body?.model)).toEqual(["small-model"]);
  });
});

describe("toolbridge chat in a terminal: retries", () => {
  it("shows each retry of a failed request, then the answer", async () => {
    const { s, t } = await chat({ replies: [{ kind: "error", status: 503, message: "the engine is loading", headers: { "retry-after": "0" } }, { text: "Back up." }] });
    await say(t, "hello");
    await waitForText(t, /retrying \(1\/2\) after HTTP 503[\s\S]*Back up\./, "the retry notice, then the answer");
    expect(s.chatRequests).toHaveLength(2);
  });
});
