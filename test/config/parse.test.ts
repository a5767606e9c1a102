import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/errors.js";
import { parseConfig } from "../../src/config/load.js";

const FILE = "/home/user/toolbridge.json";

function parse(data: unknown, env: Record<string, string> = {}) {
  return parseConfig(typeof data === "string" ? data : JSON.stringify(data), { file: FILE, env });
}

/** The one line a bad file produces. */
function failure(data: unknown, env: Record<string, string> = {}): string {
  try {
    parse(data, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).not.toContain("\n");
    return message;
  }
  throw new Error("the config was accepted");
}

describe("a bad config file gets one line naming the file, the JSON path and the problem", () => {
  it.each([
    ["a server with neither command nor url", { mcpServers: { a: { args: [] } } }, `${FILE}: mcpServers.a: needs "command" (a server to start) or "url" (a remote server)`],
    ["a number among the args", { mcpServers: { github: { command: "x", args: ["a", 1] } } }, `${FILE}: mcpServers.github.args[1]: expected a string, got the number 1`],
    ["a command that is not a string", { mcpServers: { a: { command: 3 } } }, `${FILE}: mcpServers.a.command: expected a string, got the number 3`],
    ["an empty command", { mcpServers: { a: { command: "" } } }, `${FILE}: mcpServers.a.command: must not be empty`],
    ["an env value that is not a string", { mcpServers: { a: { command: "x", env: { PORT: 80 } } } }, `${FILE}: mcpServers.a.env.PORT: expected a string, got the number 80`],
    ["args that are not an array", { mcpServers: { a: { command: "x", args: "--stdio" } } }, `${FILE}: mcpServers.a.args: expected an array, got a string ("--stdio")`],
    ["a url that is not a URL", { mcpServers: { a: { url: "localhost:3000" } } }, `${FILE}: mcpServers.a.url: not a valid http(s) or ws(s) URL: "localhost:3000"`],
    ["a url that is not http(s)", { mcpServers: { a: { url: "file:///etc/passwd" } } }, `${FILE}: mcpServers.a.url: not a valid http(s) or ws(s) URL: "file:///etc/passwd"`],
    ["a tool choice that is neither a mode nor {name}", { llm: { toolChoice: "always" } }, `${FILE}: llm.toolChoice: expected one of "auto", "required", "none", got "always"`],
    ["a named tool choice without a name", { llm: { toolChoice: {} } }, `${FILE}: llm.toolChoice.name: missing (expected a string)`],
    ["an unknown transport type", { mcpServers: { a: { url: "http://h/", type: "ws" } } }, `${FILE}: mcpServers.a.type: expected one of "http", "streamable-http", "streamableHttp", "sse", "websocket", got "ws"`],
    ["a WebSocket url under another transport", { mcpServers: { a: { url: "ws://h/mcp", type: "http" } } }, `${FILE}: mcpServers.a.url: a WebSocket server needs a ws:// or wss:// url, and a ws:// or wss:// url needs "type": "websocket" or no type`],
    ["a WebSocket server with an http url", { mcpServers: { a: { url: "http://h/mcp", transport: "websocket" } } }, `${FILE}: mcpServers.a.url: a WebSocket server needs a ws:// or wss:// url, and a ws:// or wss:// url needs "type": "websocket" or no type`],
    ["a server entry that is a string", { mcpServers: { a: "npx server" } }, `${FILE}: mcpServers.a: expected an object, got a string ("npx server")`],
    ["mcpServers as an array", { mcpServers: [] }, `${FILE}: mcpServers: expected an object, got an array`],
    ["an empty server name", { mcpServers: { "": { command: "x" } } }, `${FILE}: mcpServers: invalid key "": must not be empty`],
    ["disabled as a string", { mcpServers: { a: { command: "x", disabled: "yes" } } }, `${FILE}: mcpServers.a.disabled: expected true or false, got a string ("yes")`],
    ["a zero timeout", { mcpServers: { a: { command: "x", startupTimeoutMs: 0 } } }, `${FILE}: mcpServers.a.startupTimeoutMs: must be > 0, got 0`],
    ["a server name that is not an identifier", { mcpServers: { "my server": { command: 1 } } }, `${FILE}: mcpServers["my server"].command: expected a string, got the number 1`],
    ["a misspelt llm key", { llm: { modle: "qwen" } }, `${FILE}: llm: unknown key "modle" (did you mean "model"?)`],
    ["a temperature out of range", { llm: { temperature: 5 } }, `${FILE}: llm.temperature: must be <= 2, got 5`],
    ["an array at the top level", [], `${FILE}: expected a JSON object at the top level, got an array`],
  ])("%s", (_name, data, expected) => {
    expect(failure(data)).toBe(expected);
  });

  it.each([
    ["a trailing comma", '{\n  "mcpServers": {\n    "a": {"command": "x",}\n  }\n}', `${FILE}:3:25: invalid JSON: trailing comma before '}'`],
    ["a trailing comma in an array", '{"a": [1, 2,]}', `${FILE}:1:12: invalid JSON: trailing comma before ']'`],
    ["a missing comma", '{\n  "a": 1\n  "b": 2\n}', `${FILE}:3:3: invalid JSON: expected ',' or '}' after the property value, found "\\""`],
    ["a comment", '{\n  // my servers\n  "mcpServers": {}\n}', `${FILE}:2:3: invalid JSON: comments are not allowed in JSON`],
    ["single quotes", "{'mcpServers': {}}", `${FILE}:1:2: invalid JSON: strings must use double quotes`],
    ["a misspelt literal", '{"a": {"disabled": tru}}', `${FILE}:1:20: invalid JSON: expected a value, found tru`],
    ["a cut-off file", '{"mcpServers": {"a": {"command": "x"}', `${FILE}:1:38: invalid JSON: unexpected end of file`],
    ["an unterminated string", '{"a": "x', `${FILE}:1:7: invalid JSON: unterminated string`],
    ["a Windows path with single backslashes", '{"a": "C:\\Users\\me"}', `${FILE}:1:10: invalid JSON: bad escape \\U in string (write \\\\ for a backslash)`],
    ["text after the value", '{"a": 1} {"b": 2}', `${FILE}:1:10: invalid JSON: unexpected text after the end of the JSON value`],
    ["an empty file", "  \n", `${FILE}: the file is empty (write {} for an empty config)`],
  ])("invalid JSON: %s, with line and column", (_name, text, expected) => {
    expect(failure(text)).toBe(expected);
  });

  it("accepts a UTF-8 byte order mark, as Windows editors write it", () => {
    expect(parse('\uFEFF{"mcpServers": {}}').mcpServers).toEqual({});
  });
});

describe("configs written for other hosts load unchanged", () => {
  const fixture = (name: string) => readFileSync(join(__dirname, "fixtures", name), "utf8");

  it("loads Claude Desktop's claude_desktop_config.json", () => {
    const config = parseConfig(fixture("claude-desktop.json"), { env: {} });
    expect(Object.keys(config.mcpServers)).toEqual(["filesystem", "github"]);
    expect(config.mcpServers.github).toMatchObject({ command: "docker", env: { GITHUB_PERSONAL_ACCESS_TOKEN: "<YOUR_TOKEN>" } });
  });

  it("loads Cline's settings, ignoring autoApprove, alwaysAllow and timeout, and reading transportType", () => {
    const config = parseConfig(fixture("cline-mcp-settings.json"), { env: {} });
    const names = Object.keys(config.mcpServers);
    expect(names).toEqual(["github.com/modelcontextprotocol/servers/tree/main/src/github", "weather-sse", "docs"]);
    expect(config.mcpServers["weather-sse"]).toMatchObject({ url: "https://mcp.example.com/sse", type: "sse" });
    expect(config.mcpServers.docs).toMatchObject({ type: "streamableHttp", disabled: true });
  });

  it("loads Gemini CLI's settings.json, reading httpUrl as a Streamable HTTP url", () => {
    const config = parseConfig(fixture("gemini-settings.json"), { env: { EXTERNAL_API_KEY: "k1", API_TOKEN: "t1" } });
    expect(config.mcpServers.pythonTools).toMatchObject({
      command: "python",
      cwd: "./mcp-servers/python",
      includeTools: ["query_db"],
      excludeTools: ["drop_table"],
      // Only the braced form expands; Gemini's bare $VAR stays as written.
      env: { DATABASE_URL: "$DB_CONNECTION_STRING", API_KEY: "k1" },
    });
    expect(config.mcpServers.httpServer).toMatchObject({ url: "http://localhost:3000/mcp", type: "http", headers: { Authorization: "Bearer t1" } });
    expect(config.mcpServers.sseServer).toMatchObject({ url: "http://localhost:8080/sse" });
  });

  it("loads seed 003's config.json and reads its vllm section as the llm settings", () => {
    const config = parseConfig(fixture("seed-003-config.json"), { env: {} });
    expect(config.llm).toEqual({
      provider: "vllm",
      baseURL: "http://192.168.1.63:30327",
      model: "cpatonn/Qwen3-30B-A3B-Instruct-2507-AWQ-4bit",
      systemPrompt: "你是一個有用的助手，可以使用工具來回答問題。",
    });
    expect(config.tools).toEqual({ enabled: ["get-date"] });
    // Seed 003 names no servers: its get-date comes from the bundled time server.
    expect(Object.keys(config.mcpServers)).toEqual(["time", "math"]);
  });
});

describe("keys JSON.parse would drop without a word", () => {
  it("reports a server defined twice, with the line of the second and the object holding it", () => {
    const text = '{\n  "mcpServers": {\n    "time": {"command": "a"},\n    "time": {"command": "b"}\n  }\n}\n';
    expect(() => parse(text)).toThrow(new ConfigError('duplicate key "time": JSON keeps only the last one, remove the other', { file: FILE, line: 4, column: 5, path: ["mcpServers"] }));
  });

  it("reports a key repeated deeper down, naming its path", () => {
    const text = '{"mcpServers": {"a": {"command": "x", "env": {"TOKEN": "1", "TOKEN": "2"}}}}';
    expect(() => parse(text)).toThrow(/toolbridge\.json:1:\d+: mcpServers\.a\.env: duplicate key "TOKEN"/);
  });

  it("reports a server named __proto__ instead of losing it", () => {
    expect(() => parse('{"mcpServers": {"__proto__": {"command": "x"}, "b": {"command": "y"}}}')).toThrow(
      `${FILE}: mcpServers: "__proto__" cannot be a server name: choose another`,
    );
  });
});

describe("WebSocket servers", () => {
  it('reads a ws:// url alone, "type": "websocket" and "transport": "websocket" alike', () => {
    const config = parseConfig(
      JSON.stringify({ mcpServers: { a: { url: "ws://h/mcp" }, b: { url: "wss://h/mcp", type: "websocket" }, c: { url: "wss://h/mcp", transport: "websocket" } } }),
      { env: {} },
    );
    expect(config.mcpServers?.a).toMatchObject({ url: "ws://h/mcp" });
    expect(config.mcpServers?.b).toMatchObject({ url: "wss://h/mcp", type: "websocket" });
    expect(config.mcpServers?.c).toMatchObject({ url: "wss://h/mcp", type: "websocket" });
  });
});
