import type { CallToolResult } from "@modelcontextprotocol/server";
import picocolors from "picocolors";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/errors.js";
import { HubError } from "../../src/mcp/errors.js";
import { errorLine, exitCodeOf, ReportedFailure, UsageError } from "../../src/cli/errors.js";
import { parseJsonArgs, promptArguments } from "../../src/cli/json-args.js";
import { colorsFor } from "../../src/cli/render/colors.js";
import { renderPromptMessages, renderResourceContents, renderToolResult } from "../../src/cli/render/content.js";
import { renderResources, renderServers, renderTools } from "../../src/cli/render/listings.js";
import { displayWidth, renderTable, truncate } from "../../src/cli/render/table.js";
import type { HubTool, ServerState } from "../../src/mcp/types.js";

const plain = picocolors.createColors(false);

describe("renderTable", () => {
  const columns = [
    { header: "NAME", value: (row: { name: string; n: number; text: string }) => row.name },
    { header: "N", value: (row: { n: number }) => String(row.n), align: "right" as const },
    { header: "TEXT", value: (row: { text: string }) => row.text, shrink: true },
  ];

  it("pads columns to the widest cell, right-aligns numbers and leaves no trailing spaces", () => {
    const text = renderTable(columns, [{ name: "a", n: 5, text: "x" }, { name: "longer", n: 120, text: "" }], { colors: plain });
    expect(text).toBe("NAME      N  TEXT\na         5  x\nlonger  120\n");
  });

  it("cuts only shrinkable columns to fit the terminal width", () => {
    const text = renderTable(columns, [{ name: "tool", n: 1, text: "a very long description that does not fit" }], { colors: plain, maxWidth: 30 });
    for (const line of text.trimEnd().split("\n")) expect(displayWidth(line)).toBeLessThanOrEqual(30);
    expect(text).toContain("tool  1  a very long descript…\n");
  });

  it("measures Chinese text as two cells per character, so columns stay aligned", () => {
    const text = renderTable(columns, [{ name: "加法", n: 1, text: "计算两个数的和" }, { name: "add", n: 2, text: "sum" }], { colors: plain });
    const [, first, second] = text.split("\n");
    expect(first!.indexOf("1") + displayWidth("加法") - "加法".length).toBe(second!.indexOf("2"));
    expect(truncate("计算两个数的和", 7)).toBe("计算两…");
  });

  it("keeps every row on one line", () => {
    expect(renderTable(columns, [{ name: "a", n: 1, text: "two\nlines" }], { colors: plain })).toBe("NAME  N  TEXT\na     1  two lines\n");
  });
});

describe("colorsFor", () => {
  it("colours a terminal, not a pipe, and never with NO_COLOR", () => {
    expect(colorsFor({ isTTY: true }, {}).red("x")).not.toBe("x");
    expect(colorsFor({ isTTY: false }, {}).red("x")).toBe("x");
    expect(colorsFor({ isTTY: true }, { NO_COLOR: "1" }).red("x")).toBe("x");
    expect(colorsFor({ isTTY: true }, { TERM: "dumb" }).red("x")).toBe("x");
    expect(colorsFor({ isTTY: false }, { FORCE_COLOR: "1" }).red("x")).not.toBe("x");
  });
});

describe("listings", () => {
  const state = (overrides: Partial<ServerState>): ServerState => ({
    name: "s",
    transport: "stdio",
    status: "connected",
    toolCount: 0,
    resourceCount: 0,
    promptCount: 0,
    restarts: 0,
    ...overrides,
  });

  it("shows counts for connected servers and the error for failed ones", () => {
    const text = renderServers(
      [
        state({ name: "time", toolCount: 1, resourceCount: 10, promptCount: 1, protocolVersion: "2026-07-28", serverName: "toolbridge-time", serverVersion: "0.1.0", connectMs: 412.4 }),
        state({ name: "gh", status: "failed", error: "command not found: gh-mcp" }),
      ],
      { colors: plain },
    );
    expect(text).toMatch(/^NAME\s+TRANSPORT\s+STATUS\s+TOOLS\s+RESOURCES\s+PROMPTS\s+PROTOCOL\s+SERVER\s+CONNECT$/m);
    expect(text).toMatch(/^time\s+stdio\s+connected\s+1\s+10\s+1\s+2026-07-28\s+toolbridge-time 0\.1\.0\s+412 ms$/m);
    expect(text).toMatch(/^gh\s+stdio\s+failed\s+-\s+-\s+-\s+-$/m);
    expect(text).toMatch(/\n\ngh: command not found: gh-mcp\n$/);
  });

  it("never cuts a failure: the whole message and the stderr tail print below the table", () => {
    const long = `the process exited during startup ${"x".repeat(200)}`;
    const text = renderServers(
      [state({ name: "db", status: "failed", error: `${long}; stderr: FATAL: password authentication failed`, stderrTail: ["connecting to db", "FATAL: password authentication failed"] })],
      { colors: plain, maxWidth: 60 },
    );
    expect(text).toContain(`\ndb: ${long}\n  stderr:\n    connecting to db\n    FATAL: password authentication failed\n`);
    // The table itself stays within the width.
    const table = text.split("\n\n")[0]!;
    for (const line of table.split("\n")) expect(line.length).toBeLessThanOrEqual(60);
  });

  it("keeps every table line within the terminal width, cutting any column when the shrinkable ones are not enough", () => {
    const columns = [
      { header: "A", value: (row: { a: string }) => row.a },
      { header: "B", value: (row: { a: string }) => row.a.toUpperCase() },
    ];
    const text = renderTable(columns, [{ a: "y".repeat(50) }], { colors: plain, maxWidth: 40 });
    for (const line of text.trimEnd().split("\n")) expect(line.length).toBeLessThanOrEqual(40);
    expect(text).toContain("…");
  });

  it("at 60 columns, servers keeps name, status and counts whole, leaving out what matters less", () => {
    const text = renderServers(
      [
        state({ name: "filesystem", toolCount: 14, resourceCount: 0, promptCount: 0, protocolVersion: "2025-11-25", serverName: "secure-filesystem-server", serverVersion: "0.2.0", connectMs: 812 }),
        state({ name: "everything", transport: "streamable-http", toolCount: 13, resourceCount: 100, promptCount: 4, protocolVersion: "2026-07-28", serverName: "mcp-servers/everything", serverVersion: "2.0.0", connectMs: 95 }),
      ],
      { colors: plain, maxWidth: 60 },
    );
    const lines = text.trimEnd().split("\n");
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    expect(text).not.toContain("…");
    expect(lines[0]).toMatch(/^NAME\s+.*STATUS\s+TOOLS\s+RESOURCES\s+PROMPTS\s+PROTOCOL$/);
    expect(lines[1]).toMatch(/^filesystem\s+.*connected\s+14\s+0\s+0\s+2025-11-25$/);
    expect(lines[2]).toMatch(/^everything\s+.*connected\s+13\s+100\s+4\s+2026-07-28$/);
  });

  it("at 60 columns, resources shows every URI whole and drops other columns first", () => {
    const resources = [
      { uri: "file:///home/someone/projects/notes/2026-11-24.md", name: "2026-11-24.md", mimeType: "text/markdown", server: "filesystem", description: "Today's notes" },
      { uri: "demo://resource/static/document/architecture.md", name: "architecture.md", mimeType: "text/markdown", server: "everything", description: "A static document" },
    ];
    const text = renderResources(resources as never, { colors: plain, maxWidth: 60 });
    for (const r of resources) expect(text).toContain(r.uri);
    for (const line of text.trimEnd().split("\n")) expect(line.length).toBeLessThanOrEqual(60);
    expect(text).toMatch(/^URI\s+SERVER$/m);
    // With room, every column is there.
    expect(renderResources(resources as never, { colors: plain, maxWidth: 200 })).toMatch(/^URI\s+NAME\s+MIME TYPE\s+SERVER\s+DESCRIPTION$/m);
  });

  it("adds the server's own name only when the hub renamed a tool", () => {
    const tool = (name: string, originalName: string, server: string): HubTool => ({ name, originalName, server, inputSchema: { type: "object" } });
    expect(renderTools([tool("echo", "echo", "a")], { colors: plain })).not.toContain("SERVER'S NAME");
    const renamed = renderTools([tool("a__echo", "echo", "a"), tool("b__echo", "echo", "b")], { colors: plain });
    expect(renamed).toMatch(/^a__echo\s+a\s+echo\s*$/m);
  });
});

describe("rendering content", () => {
  it("prints text, summarises images and audio, and shows resource links", () => {
    const result: CallToolResult = {
      content: [
        { type: "text", text: "hello" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a.txt", name: "a.txt", mimeType: "text/plain" },
      ],
    };
    expect(renderToolResult(result, plain)).toBe('hello\n[image image/png, 8 bytes]\n[audio audio/wav, 3 bytes]\n[resource link file:///a.txt "a.txt" text/plain]\n');
  });

  it("prints the text alone when a result also has structured content (servers repeat it as text)", () => {
    const text = renderToolResult({ content: [{ type: "text", text: "2 + 3 = 5" }], structuredContent: { result: 5 } }, plain);
    expect(text).toBe("2 + 3 = 5\n");
  });

  it("prints structured content as indented JSON when there is no text", () => {
    const text = renderToolResult({ content: [], structuredContent: { result: 5 } }, plain);
    expect(text).toBe('{\n  "result": 5\n}\n');
  });

  it("prints structured content once when the text is the same JSON", () => {
    const text = renderToolResult({ content: [{ type: "text", text: '{"result":5}' }], structuredContent: { result: 5 } }, plain);
    expect(text).toBe('{\n  "result": 5\n}\n');
  });

  it("prints embedded text resources and summarises blobs", () => {
    const text = renderToolResult(
      {
        content: [
          { type: "resource", resource: { uri: "demo://t", mimeType: "text/plain", text: "body" } },
          { type: "resource", resource: { uri: "demo://b", blob: "AAAAAA==" } },
        ],
      },
      plain,
    );
    expect(text).toBe("[resource demo://t text/plain]\nbody\n[resource demo://b, 4 bytes]\n");
  });

  it("labels each of several resource contents with its URI", () => {
    const text = renderResourceContents(
      { contents: [{ uri: "a://1", text: "one" }, { uri: "a://2", mimeType: "image/png", blob: "AAAA" }] },
      plain,
    );
    expect(text).toBe("[a://1]\none\n[blob a://2 image/png, 3 bytes; use --json for the data]\n");
  });

  it("prints prompt messages under their roles", () => {
    const text = renderPromptMessages(
      { description: "Weather", messages: [{ role: "user", content: { type: "text", text: "Weather in Taipei?" } }, { role: "assistant", content: { type: "text", text: "Sunny." } }] },
      plain,
    );
    expect(text).toBe("Weather\n\nuser:\nWeather in Taipei?\n\nassistant:\nSunny.\n");
  });
});

describe("JSON_ARGS", () => {
  it("parses an object, and no argument as no arguments", () => {
    expect(parseJsonArgs('{"format": "iso"}')).toEqual({ format: "iso" });
    expect(parseJsonArgs(undefined)).toEqual({});
    expect(parseJsonArgs("  ")).toEqual({});
  });

  it("names the column of a syntax error", () => {
    expect(() => parseJsonArgs("{format: 'iso'}")).toThrow(new UsageError(`JSON_ARGS is not valid JSON at column 2: expected a property name in double quotes, found format (got "{format: 'iso'}")`));
  });

  it("rejects what is not an object", () => {
    expect(() => parseJsonArgs('"iso"')).toThrow(`JSON_ARGS must be a JSON object such as '{"name": "value"}', got "iso"`);
  });

  it("takes numbers and booleans as prompt argument text, and refuses objects", () => {
    expect(promptArguments({ city: "Taipei", days: 3, metric: true })).toEqual({ city: "Taipei", days: "3", metric: "true" });
    expect(() => promptArguments({ where: { city: "Taipei" } })).toThrow('prompt argument "where" must be a string, got an object');
  });
});

describe("errors", () => {
  it("exits 2 for input mistakes, 1 for failures, and keeps a reported failure's code", () => {
    expect(exitCodeOf(new UsageError("x"))).toBe(2);
    expect(exitCodeOf(new ConfigError("x", { file: "f" }))).toBe(2);
    expect(exitCodeOf(new HubError("timeout", "x"))).toBe(1);
    expect(exitCodeOf(new Error("x"))).toBe(1);
    expect(exitCodeOf(new ReportedFailure(1))).toBe(1);
  });

  it("shows one line, naming unexpected error kinds", () => {
    expect(errorLine(new HubError("timeout", "tools/call timed out\nmore"))).toBe("tools/call timed out");
    expect(errorLine(new TypeError("x is not a function"))).toBe("TypeError: x is not a function");
    expect(errorLine("plain")).toBe("plain");
  });

  it("says which command logs in again when a server wants a new login", () => {
    const error = new HubError("needs-login", 'tools/call whoami on server "remote" needs a new login', { server: "remote" });
    expect(errorLine(error)).toBe('tools/call whoami on server "remote" needs a new login: run toolbridge auth login remote');
  });
});
