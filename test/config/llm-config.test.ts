import { describe, expect, it } from "vitest";
import { resolveLlmConfig, toolAllowList } from "../../src/config/llm-config.js";

describe("resolveLlmConfig", () => {
  it("reads seed 003's vllm section as provider vllm", () => {
    expect(resolveLlmConfig({ vllm: { baseURL: "http://h:1", model: "q" } })).toEqual({ provider: "vllm", baseURL: "http://h:1", model: "q" });
  });

  it("lets the llm section win key by key over vllm", () => {
    expect(resolveLlmConfig({ vllm: { baseURL: "http://h:1", model: "q" }, llm: { model: "other", temperature: 0.2 } })).toEqual({
      provider: "vllm",
      baseURL: "http://h:1",
      model: "other",
      temperature: 0.2,
    });
  });

  it("returns the llm section alone, or nothing, without vllm", () => {
    expect(resolveLlmConfig({ llm: { provider: "ollama" } })).toEqual({ provider: "ollama" });
    expect(resolveLlmConfig({})).toEqual({});
  });
});

describe("toolAllowList", () => {
  const tool = (name: string, originalName = name) => ({ name, originalName });

  it("allows every tool when the config names none", () => {
    expect(toolAllowList({})(tool("anything"))).toBe(true);
  });

  it("allows only the enabled tools, by exposed or original name", () => {
    const allowed = toolAllowList({ tools: { enabled: ["get-date", "add"] } });
    expect(allowed(tool("get-date"))).toBe(true);
    expect(allowed(tool("math__add", "add"))).toBe(true);
    expect(allowed(tool("multiply"))).toBe(false);
  });

  it("lets disabled win over enabled", () => {
    const allowed = toolAllowList({ tools: { enabled: ["a", "b"], disabled: ["b"] } });
    expect([allowed(tool("a")), allowed(tool("b"))]).toEqual([true, false]);
  });
});
