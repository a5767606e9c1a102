import { afterEach, describe, expect, it } from "vitest";
import { ApprovalPolicy } from "../../src/agent/approval.js";
import { createSamplingHandler } from "../../src/agent/sampling.js";
import { createChatModel } from "../../src/llm/create-model.js";
import type { ChatModel } from "../../src/llm/types.js";
import type { CallToolResult } from "../../src/mcp/types.js";
import { hubPerTest } from "../mcp/hub-per-test.js";
import { fixture } from "../mcp/processes.js";
import { startGeminiServer } from "../support/gemini-server.js";
import type { ScriptedServer } from "../support/scripted-server.js";
import { startVllmServer } from "../support/vllm-server.js";

/**
 * A server (the official SDK) asks the hub to sample with an audio clip: the clip reaches the
 * model in the provider's own shape (OpenAI-compatible `input_audio`, Gemini inline data), and
 * a format or provider that cannot take it is one clear error naming the provider.
 */

const hubs = hubPerTest("toolbridge-sampling-audio-");
let model: ScriptedServer | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

// "RIFF" and a few bytes: what is checked is that the data arrives as sent.
const CLIP = Buffer.from("RIFF\x24\x00\x00\x00WAVEfmt ").toString("base64");

async function listen(chatModel: () => Promise<ChatModel>, mimeType: string): Promise<CallToolResult> {
  const hub = await hubs.connect(
    { audio: fixture("audio-sampling-server.mjs") },
    { onSampling: createSamplingHandler({ approval: { policy: new ApprovalPolicy({ mode: "all" }) }, model: chatModel }) },
  );
  expect(hub.servers()[0]?.status).toBe("connected");
  return hub.callTool("listen", { data: CLIP, mimeType });
}

const text = (result: CallToolResult) => result.content.map((block) => (block.type === "text" ? block.text : "")).join("");

describe("audio in sampling", () => {
  it("reaches an OpenAI-compatible server as input_audio (wav and mp3)", async () => {
    const vllm = await startVllmServer({ replies: [{ text: "Hello there." }, { text: "Again." }] });
    model = vllm;
    const chatModel = () => createChatModel({ provider: "vllm", baseURL: vllm.url, model: "Qwen/Qwen2-Audio-7B" }, {});
    expect(text(await listen(chatModel, "audio/wav"))).toBe("heard: Hello there.");
    expect(text(await listen(chatModel, "audio/mpeg"))).toBe("heard: Again.");
    const [wav, mp3] = vllm.chatRequests.map((r) => r.body.messages[0].content);
    expect(wav).toEqual([
      { type: "text", text: "What is said in this clip?" },
      { type: "input_audio", input_audio: { data: CLIP, format: "wav" } },
    ]);
    expect(mp3[1]).toEqual({ type: "input_audio", input_audio: { data: CLIP, format: "mp3" } });
  }, 30_000);

  it("refuses a format input_audio cannot carry, naming the provider, without calling the model", async () => {
    const vllm = await startVllmServer({ replies: [{ text: "never" }] });
    model = vllm;
    const result = await listen(() => createChatModel({ provider: "vllm", baseURL: vllm.url, model: "m" }, {}), "audio/ogg");
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("vllm takes audio as wav or mp3 only (input_audio), not audio/ogg");
    expect(vllm.chatRequests).toHaveLength(0);
  }, 30_000);

  it("reaches Gemini as inline data", async () => {
    const gemini = await startGeminiServer({ replies: [{ text: "Bonjour." }] });
    model = gemini;
    const result = await listen(() => createChatModel({ provider: "gemini", baseURL: gemini.url, model: "gemini-2.5-flash" }, { GEMINI_API_KEY: "k" }), "audio/ogg");
    expect(text(result)).toBe("heard: Bonjour.");
    const parts = gemini.requests[0]?.body.contents[0].parts;
    expect(parts).toEqual([{ text: "What is said in this clip?" }, { inlineData: { mimeType: "audio/ogg", data: CLIP } }]);
  }, 30_000);

  it("is refused by Anthropic with an error that names it", async () => {
    const result = await listen(() => createChatModel({ provider: "anthropic", baseURL: "http://127.0.0.1:9", model: "claude-sonnet-4-5" }, { ANTHROPIC_API_KEY: "k" }), "audio/wav");
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("anthropic cannot take audio input (audio/wav)");
  }, 30_000);
});
