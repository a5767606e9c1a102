import { afterEach, describe, expect, it } from "vitest";
import { AnthropicModel } from "../../src/llm/anthropic.js";
import { createChatModel } from "../../src/llm/create-model.js";
import { normalizeBaseURL } from "../../src/llm/discovery.js";
import { LlmError } from "../../src/llm/errors.js";
import { GeminiModel } from "../../src/llm/gemini.js";
import { OpenAICompatibleModel } from "../../src/llm/openai-compatible.js";
import { startVllmServer, type VllmServer } from "../support/vllm-server.js";
import { freePort } from "../support/free-port.js";
import { collect } from "./collect.js";

let server: VllmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const hello = { messages: [{ role: "user" as const, content: "hi" }] };

describe("createChatModel", () => {
  it("uses the first model the server lists when none is named", async () => {
    server = await startVllmServer({ model: "Qwen/Qwen3-30B-A3B", otherModels: ["other"], replies: [{ text: "hello" }] });
    const model = await createChatModel({ baseURL: server.url }, {});
    expect(model).toBeInstanceOf(OpenAICompatibleModel);
    expect(model.modelId).toBe("Qwen/Qwen3-30B-A3B");
    expect((await collect(model.stream(hello))).text).toBe("hello");
    expect(server.chatRequests[0]?.body.model).toBe("Qwen/Qwen3-30B-A3B");
  });

  it("asks nothing of /models when the model is named", async () => {
    server = await startVllmServer({});
    const model = await createChatModel({ provider: "vllm", baseURL: server.url, model: "named" }, {});
    expect(model.modelId).toBe("named");
    expect(model.provider).toBe("vllm");
    expect(server.requests).toHaveLength(0);
  });

  it("reads seed 003's base URL without /v1 as vLLM serves it", async () => {
    server = await startVllmServer({ replies: [{ text: "ok" }] });
    const bare = server.url.replace(/\/v1$/, "");
    const model = await createChatModel({ provider: "vllm", baseURL: bare, model: "m" }, {});
    await collect(model.stream(hello));
    expect(server.chatRequests).toHaveLength(1);
    expect(normalizeBaseURL("http://192.168.1.63:30327")).toBe("http://192.168.1.63:30327/v1");
    expect(normalizeBaseURL("http://proxy.local/api/openai/")).toBe("http://proxy.local/api/openai");
  });

  it("takes OPENAI_BASE_URL from the env map, with OPENAI_API_KEY for it", async () => {
    server = await startVllmServer({ replies: [{ text: "ok" }] });
    const model = await createChatModel({ model: "m" }, { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-from-env" });
    await collect(model.stream(hello));
    expect(server.chatRequests[0]?.headers.authorization).toBe("Bearer sk-from-env");
  });

  it("finds a local server when no URL is given, trying the next when one does not answer, and sends it no OpenAI key", async () => {
    server = await startVllmServer({ replies: [{ text: "found" }] });
    const dead = `http://127.0.0.1:${await freePort()}/v1`;
    const model = await createChatModel({}, { OPENAI_API_KEY: "sk-secret" }, {
      localServers: [{ name: "vLLM", baseURL: dead }, { name: "Ollama", baseURL: server.url }],
    });
    expect((await collect(model.stream(hello))).text).toBe("found");
    expect(server.requests[0]?.path).toBe("/v1/models");
    expect(JSON.stringify(server.requests.map((r) => r.headers))).not.toContain("sk-secret");
  });

  it("reports the base URL its requests go to: the server found by looking, a bare URL with /v1, the providers' defaults", async () => {
    server = await startVllmServer({ replies: [{ text: "found" }] });
    const dead = `http://127.0.0.1:${await freePort()}/v1`;
    const found = await createChatModel({}, {}, { localServers: [{ name: "vLLM", baseURL: dead }, { name: "Ollama", baseURL: server.url }] });
    expect(found.baseURL).toBe(server.url);
    const bare = await createChatModel({ provider: "vllm", baseURL: server.url.replace(/\/v1$/, ""), model: "m" }, {});
    expect(bare.baseURL).toBe(server.url);
    const anthropic = await createChatModel({ provider: "anthropic", model: "claude-haiku-4-5" }, { ANTHROPIC_API_KEY: "k" });
    expect(anthropic.baseURL).toBe("https://api.anthropic.com");
    const gemini = await createChatModel({ provider: "gemini", model: "gemini-2.5-flash", baseURL: "http://127.0.0.1:9/" }, { GEMINI_API_KEY: "k" });
    expect(gemini.baseURL).toBe("http://127.0.0.1:9");
  });

  it("says in one line where it looked and the two ways on, a server or a model file, when none answers", async () => {
    const a = `http://127.0.0.1:${await freePort()}/v1`;
    const b = `http://127.0.0.1:${await freePort()}/v1`;
    // No model downloaded to stand in.
    const env = { XDG_CACHE_HOME: "/nonexistent/toolbridge-test-cache" };
    const err = await createChatModel({}, env, { localServers: [{ name: "vLLM", baseURL: a }, { name: "Ollama", baseURL: b }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).code).toBe("connection");
    expect((err as LlmError).message).toBe(
      `No model server answers at ${a} (vLLM) or ${b} (Ollama). Either start one with \`vllm serve MODEL --enable-auto-tool-choice --tool-call-parser hermes\` or \`ollama serve\` (or name another with --base-url URL), or run a GGUF file already on disk (--provider local --model PATH).`,
    );
  });

  it("picks the Anthropic and Gemini adapters with keys from apiKeyEnv or the usual variable", async () => {
    const anthropic = await createChatModel({ provider: "anthropic", model: "claude-haiku-4-5", apiKeyEnv: "MY_KEY" }, { MY_KEY: "k1" });
    expect(anthropic).toBeInstanceOf(AnthropicModel);
    const gemini = await createChatModel({ provider: "gemini", model: "gemini-2.5-flash" }, { GEMINI_API_KEY: "k2" });
    expect(gemini).toBeInstanceOf(GeminiModel);
  });

  it("refuses settings that cannot work, naming what is missing", async () => {
    const cases: Array<[Parameters<typeof createChatModel>[0], Record<string, string>, string]> = [
      [{ provider: "anthropic", model: "claude-haiku-4-5" }, {}, "ANTHROPIC_API_KEY"],
      [{ provider: "gemini" }, { GEMINI_API_KEY: "k" }, "llm.model"],
      [{ provider: "anthropic", model: "x", apiKeyEnv: "UNSET_VAR" }, {}, "UNSET_VAR"],
      [{ provider: "openai" }, {}, "OPENAI_API_KEY"],
    ];
    for (const [config, env, mentions] of cases) {
      const err = (await createChatModel(config, env).catch((e: unknown) => e)) as LlmError;
      expect(err.code).toBe("config");
      expect(err.message).toContain(mentions);
    }
  });
});
