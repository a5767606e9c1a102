import { describe, expect, it } from "vitest";
import { toolSearchSettings } from "../../src/host/tool-search-settings.js";
import { parseConfig } from "../../src/config/load.js";
import { EmbeddingRanker } from "../../src/toolcall/tool-search.js";

describe("the config's tools.search and llm.promptFormat", () => {
  it("reads the short and the long form of tools.search, and llm.promptFormat", () => {
    const config = parseConfig(
      JSON.stringify({
        llm: { promptFormat: "glm" },
        tools: { search: { mode: "always", maxTools: 10, alwaysLoaded: ["get-date"], embeddings: { baseURL: "http://127.0.0.1:9/v1", model: "bge" } } },
      }),
      { file: "toolbridge.json", env: {} },
    );
    expect(config.llm?.promptFormat).toBe("glm");
    const settings = toolSearchSettings(config.tools?.search, {});
    expect(settings).toMatchObject({ mode: "always", maxTools: 10, alwaysLoaded: ["get-date"] });
    expect(settings.embeddings).toBeInstanceOf(EmbeddingRanker);
    expect(toolSearchSettings("off", {})).toEqual({ mode: "off" });
    expect(toolSearchSettings(undefined, {})).toEqual({ mode: "auto" });
  });

  it("names the key of a wrong search mode or prompt format in one line", () => {
    expect(() => parseConfig(JSON.stringify({ tools: { search: "sometimes" } }), { file: "toolbridge.json", env: {} })).toThrow('toolbridge.json: tools.search: expected one of "off", "auto", "always", got "sometimes"');
    expect(() => parseConfig(JSON.stringify({ llm: { promptFormat: "qwen" } }), { file: "toolbridge.json", env: {} })).toThrow(/^toolbridge\.json: llm\.promptFormat: expected one of "auto", "hermes", .*"granite".*, got "qwen"$/);
  });
});
