import { afterEach, describe, expect, it } from "vitest";
import { LlmError } from "../../src/llm/errors.js";
import { listModelInfo, listModels, requireListedModel, servedModels } from "../../src/llm/discovery.js";
import { startVllmServer, type VllmServer } from "../support/vllm-server.js";

let server: VllmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("the models a server lists", () => {
  it("lists them in the server's order", async () => {
    server = await startVllmServer({ model: "Qwen/Qwen3-8B", otherModels: ["meta-llama/Llama-3.1-8B-Instruct"] });
    expect(await listModels(server.url, undefined, 5000)).toEqual(["Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B-Instruct"]);
  });

  it("accepts a listed model and refuses one the server does not list, naming those it does", async () => {
    server = await startVllmServer({ model: "Qwen/Qwen3-8B", otherModels: ["other"] });
    expect((await requireListedModel(server.url, undefined, 5000, "other")).map((model) => model.id)).toEqual(["Qwen/Qwen3-8B", "other"]);
    const refused = await requireListedModel(server.url, undefined, 5000, "qwen3").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LlmError);
    expect((refused as LlmError).code).toBe("config");
    expect((refused as LlmError).message).toBe(`The model server at ${server.url} does not serve "qwen3"; it lists Qwen/Qwen3-8B, other.`);
  });
});

describe("a model listed under several names", () => {
  it("counts as one model in the names a refusal lists, its aliases beside it", async () => {
    const aliases = Array.from({ length: 30 }, (_, i) => `alias-${i}`);
    const others = Array.from({ length: 21 }, (_, i) => `other-${i}`);
    server = await startVllmServer({ model: "Qwen/Qwen3-8B", aliases, otherModels: others });
    const refused = (await requireListedModel(server.url, undefined, 5000, "zzzzzzzz").catch((error: unknown) => error)) as LlmError;
    // 22 models under 52 names: 20 named, "and 2 more"; not "and 32 more".
    expect(refused.message).toBe(
      `The model server at ${server.url} does not serve "zzzzzzzz"; it lists Qwen/Qwen3-8B (also alias-0, alias-1, alias-2 and 27 more names), ${others.slice(0, 19).join(", ")} and 2 more.`,
    );
  });

  it("groups names by vLLM's root, and keeps a LoRA adapter (a root of its own) apart", () => {
    const listed = (id: string, root?: string) => ({ id, ...(root === undefined ? {} : { listing: { id, root } }) });
    expect(servedModels([listed("qwen", "/models/qwen3"), listed("sql-lora", "/adapters/sql"), listed("default", "/models/qwen3"), listed("llama3:8b"), listed("llama3:8b-q4")])).toEqual([
      { names: ["qwen", "default"] },
      { names: ["sql-lora"] },
      { names: ["llama3:8b"] },
      { names: ["llama3:8b-q4"] },
    ]);
  });
});

describe("what a server says of each model", () => {
  it("reads vLLM's max_model_len as the context length", async () => {
    server = await startVllmServer({ model: "Qwen/Qwen3-8B", otherModels: ["small"], maxModelLen: 8192 });
    expect(await listModelInfo(server.url, undefined, 5000)).toEqual([
      { id: "Qwen/Qwen3-8B", contextLength: 8192, listing: expect.objectContaining({ id: "Qwen/Qwen3-8B", max_model_len: 8192, owned_by: "vllm" }) },
      { id: "small", contextLength: 8192, listing: expect.objectContaining({ id: "small" }) },
    ]);
  });

  it("leaves the context length unknown when the server does not list it", async () => {
    server = await startVllmServer({ maxModelLen: null });
    expect(await listModelInfo(server.url, undefined, 5000)).toEqual([{ id: "Qwen/Qwen3-8B", listing: expect.not.objectContaining({ max_model_len: expect.anything() }) }]);
  });

  it("suggests the listed name a refused one is likely a slip of", async () => {
    server = await startVllmServer({ model: "Qwen/Qwen3-8B", otherModels: ["meta-llama/Llama-3.1-8B-Instruct"] });
    const bare = await requireListedModel(server.url, undefined, 5000, "Qwen3-8B").catch((error: unknown) => error);
    expect((bare as LlmError).message).toBe(`The model server at ${server.url} does not serve "Qwen3-8B"; did you mean "Qwen/Qwen3-8B"?`);
    const cased = await requireListedModel(server.url, undefined, 5000, "qwen/qwen3-8b", [{ id: "Qwen/Qwen3-8B" }]).catch((error: unknown) => error);
    expect((cased as LlmError).message).toMatch(/did you mean "Qwen\/Qwen3-8B"\?$/);
    // The list given is used: no request is made.
    expect(server.requests.filter((request) => request.path === "/v1/models")).toHaveLength(1);
  });
});
