import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";

describe("examples/toolbridge.json", () => {
  it("loads without a warning: servers and llm as the README describes them", () => {
    const loaded = loadConfig({ file: join(import.meta.dirname, "../../examples/toolbridge.json"), env: {} });
    expect(loaded.warnings).toEqual([]);
    expect(Object.keys(loaded.config.mcpServers)).toEqual(["time", "math", "filesystem"]);
    expect(loaded.config.llm?.baseURL).toBe("http://127.0.0.1:8000/v1");
  });
});
