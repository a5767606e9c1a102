import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { didYouMean, unknownKeyWarnings } from "../../src/config/unknown-keys.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbridge-unknown-keys-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function load(data: unknown) {
  const file = join(dir, "toolbridge.json");
  writeFileSync(file, JSON.stringify(data));
  return loadConfig({ file, cwd: dir, env: {} });
}

describe("doubtful keys", () => {
  it("a misspelt mcpServers is warned about with the key it meant, and the bundled servers said to stand in", () => {
    const loaded = load({ mcp_servers: { fs: { command: "x" } } });
    expect(loaded.warnings).toEqual([
      'mcp_servers: unknown key (did you mean "mcpServers"?)',
      'no "mcpServers" in this file (its keys: mcp_servers); using the bundled time and math servers',
    ]);
    expect(Object.keys(loaded.config.mcpServers)).toEqual(["time", "math"]);
  });

  it("a misspelt key in a server entry is warned about; other hosts' keys stay quiet", () => {
    expect(unknownKeyWarnings({ mcpServers: { fs: { command: "x", excludedTools: ["a"], description: "files", timeout: 60 } } })).toEqual([
      'mcpServers.fs.excludedTools: unknown key (did you mean "excludeTools"?)',
    ]);
    expect(unknownKeyWarnings({ mcpServers: {}, globalShortcut: "Ctrl+Space", theme: "dark" })).toEqual([]);
  });

  it("every key the schema knows is quiet: top-level roots, tasks, gateway; a server's roots, oauth, sampling", () => {
    const loaded = load({
      roots: ["src"],
      tasks: "auto",
      gateway: { listen: "4000" },
      mcpServers: { fs: { command: "x", roots: ["."], logLevel: "info", sampling: { model: "m" }, maxMessageBytes: 10 }, r: { url: "https://a.example/mcp", oauth: {} } },
    });
    expect(loaded.warnings).toEqual([]);
    expect(loaded.config.roots).toEqual(["src"]);
  });

  it("a misspelt key in llm (a strict section) fails with the key it probably meant", () => {
    expect(() => load({ llm: { baseUrl: "http://127.0.0.1:8000/v1" } })).toThrow(/llm: unknown key "baseUrl" \(did you mean "baseURL"\?\)/);
    expect(() => load({ llm: { sytemPrompt: "hi" } })).toThrow(/did you mean "systemPrompt"/);
    expect(() => load({ gateway: { listn: "4000" } })).toThrow(/gateway: unknown key "listn" \(did you mean "listen"\?\)/);
    expect(() => load({ llm: { banana: 1 } })).toThrow(/llm: unknown key "banana"$/);
  });

  it("suggests by case and separators, or by at most two edits", () => {
    expect(didYouMean("MCPServers", ["mcpServers"])).toBe("mcpServers");
    expect(didYouMean("arg", ["args"])).toBeUndefined();
    expect(didYouMean("comand", ["command", "cwd"])).toBe("command");
    expect(didYouMean("banana", ["command"])).toBeUndefined();
  });
});

describe("VS Code's mcp.json", () => {
  it("reads `servers` with `type` as the server list, inputs ignored", () => {
    const loaded = load({
      inputs: [{ type: "promptString", id: "token", password: true }],
      servers: { time: { type: "stdio", command: "node", args: ["t.js"] }, remote: { type: "http", url: "https://mcp.example.com/mcp" } },
    });
    expect(loaded.warnings).toEqual([]);
    expect(loaded.config.mcpServers).toEqual({
      time: { type: "stdio", command: "node", args: ["t.js"] },
      remote: { type: "http", url: "https://mcp.example.com/mcp" },
    });
  });
});
