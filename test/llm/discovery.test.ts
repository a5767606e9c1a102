import { afterEach, describe, expect, it } from "vitest";
import { LlmError } from "../../src/llm/errors.js";
import { listModels, requireListedModel } from "../../src/llm/discovery.js";
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
    expect(await requireListedModel(server.url, undefined, 5000, "other")).toEqual(["Qwen/Qwen3-8B", "other"]);
    const refused = await requireListedModel(server.url, undefined, 5000, "qwen3").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LlmError);
    expect((refused as LlmError).code).toBe("config");
    expect((refused as LlmError).message).toBe(`The model server at ${server.url} does not serve "qwen3"; it lists Qwen/Qwen3-8B, other.`);
  });
});
