import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import type { CallToolResult } from "../../src/mcp/types.js";
import { serversClosedAfterEach } from "../support/closed-after-each.js";
import { readBody } from "../support/read-body.js";
import { hubPerTest } from "./hub-per-test.js";

/**
 * What toolbridge puts on the HTTP requests of a 2026-07-28 server, against a real v2 server (stateless
 * Streamable HTTP, in this process) behind a front that notes every request and can refuse some:
 * the Mcp-Param-* headers mirroring the arguments a tool declares with x-mcp-header (SEP-2243), and
 * the tools left out of the list for an invalid x-mcp-header declaration, and
 * the one retry a -32022 (unsupported protocol version) answer to the server/discover probe asks for (SEP-2575).
 */

const MODERN = "2026-07-28";
const { connect, stderrLogFile } = hubPerTest("toolbridge-http-headers-");

interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
  meta: Record<string, unknown> | undefined;
}

/** Answers the request itself (true), or leaves it to the v2 server. */
type Front = (seen: Seen, id: unknown, res: ServerResponse) => boolean;

const header = (name: string) => ({ type: "string", "x-mcp-header": name });
const ROUTE_SCHEMA = {
  type: "object",
  properties: {
    region: header("Region"),
    priority: { type: "integer", "x-mcp-header": "Priority" },
    verbose: { type: "boolean", "x-mcp-header": "Verbose" },
    padded: header("Padded"),
    greeting: header("Greeting"),
    lines: header("Lines"),
    lookalike: header("Lookalike"),
    nested: { type: "object", properties: { zone: header("Zone") } },
    query: { type: "string" },
  },
  required: ["region"],
};

function build(): McpServer {
  const server = new McpServer({ name: "headers", version: "1.0.0" }, { supportedProtocolVersions: [MODERN] });
  server.registerTool("route", { description: "Echoes its arguments", inputSchema: fromJsonSchema(ROUTE_SCHEMA) }, async (args) => ({
    content: [{ type: "text", text: JSON.stringify(args) }],
  }));
  return server;
}

const servers = serversClosedAfterEach();

async function serve(front: Front = () => false): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const handler = toNodeHandler(createMcpHandler(build, { legacy: "reject" }));
  const server = createServer((req, res) => {
    if (req.method !== "POST") return void handler(req, res);
    void readBody(req).then((text) => {
      const body = JSON.parse(text) as { id?: unknown; method: string; params?: { _meta?: Record<string, unknown> } };
      const entry = { method: body.method, headers: req.headers, meta: body.params?._meta };
      seen.push(entry);
      if (!front(entry, body.id, res)) void handler(req, res, body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, seen };
}

function refuseVersion(res: ServerResponse, id: unknown, supported: string[], requested: unknown): true {
  res.writeHead(400, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: id ?? null, error: { code: -32022, message: "Unsupported protocol version", data: { supported, requested } } }));
  return true;
}

const versionOf = (seen: Seen) => ({ header: seen.headers["mcp-protocol-version"], meta: seen.meta?.["io.modelcontextprotocol/protocolVersion"] });
const base64 = (text: string) => `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`;

describe("Mcp-Param-* headers for a tool that declares x-mcp-header (SEP-2243)", () => {
  it("mirrors each declared argument into its header: plain ASCII as it is, integers and booleans as text, and nothing undeclared", async () => {
    const { url, seen } = await serve();
    const hub = await connect({ remote: { url } });
    expect(hub.servers()[0]).toMatchObject({ status: "connected", protocolVersion: MODERN });
    const args = { region: "us-west1", priority: 42, verbose: false, nested: { zone: "b" }, query: "SELECT * FROM users" };
    const result: CallToolResult = await hub.callTool("route", args);
    // The v2 server checks every Mcp-Param-* header against the body and refuses a call whose headers disagree.
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(result.content[0]?.type === "text" ? result.content[0].text : "")).toEqual(args);
    const call = seen.filter((entry) => entry.method === "tools/call").at(-1);
    const params = Object.fromEntries(Object.entries(call?.headers ?? {}).filter(([name]) => name.startsWith("mcp-param-")));
    expect(params).toEqual({ "mcp-param-region": "us-west1", "mcp-param-priority": "42", "mcp-param-verbose": "false", "mcp-param-zone": "b" });
    expect(call?.headers).toMatchObject({ "mcp-method": "tools/call", "mcp-name": "route" });
  }, 20_000);

  it("sends a value that is no safe header text as =?base64?…?= (padding, non-ASCII, control characters, the sentinel itself), and leaves out an absent argument and an unsafe integer", async () => {
    const { url, seen } = await serve();
    const hub = await connect({ remote: { url } });
    const args = { region: "eu", priority: 2 ** 60, padded: " padded ", greeting: "Hello, 世界", lines: "line1\r\nline2", lookalike: "=?base64?abc?=" };
    const result: CallToolResult = await hub.callTool("route", args);
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(result.content[0]?.type === "text" ? result.content[0].text : "")).toEqual(args);
    const call = seen.filter((entry) => entry.method === "tools/call").at(-1);
    const params = Object.fromEntries(Object.entries(call?.headers ?? {}).filter(([name]) => name.startsWith("mcp-param-")));
    expect(params).toEqual({
      "mcp-param-region": "eu",
      "mcp-param-padded": base64(" padded "),
      "mcp-param-greeting": base64("Hello, 世界"),
      "mcp-param-lines": base64("line1\r\nline2"),
      "mcp-param-lookalike": base64("=?base64?abc?="),
    });
  }, 20_000);
});

/** Tools whose x-mcp-header declarations break a rule of SEP-2243, each named for the rule. */
const INVALID_TOOLS: Record<string, { schema: Record<string, unknown>; why: string }> = {
  empty_name: { schema: { type: "object", properties: { v: header("") } }, why: 'x-mcp-header of property "v" is not a non-empty string' },
  not_a_string: { schema: { type: "object", properties: { v: { type: "string", "x-mcp-header": 7 } } }, why: 'x-mcp-header of property "v" is not a non-empty string' },
  space_in_name: { schema: { type: "object", properties: { v: header("My Region") } }, why: 'x-mcp-header "My Region" of property "v" is not an HTTP header name (RFC 9110 token)' },
  colon_in_name: { schema: { type: "object", properties: { v: header("Region:Primary") } }, why: 'x-mcp-header "Region:Primary" of property "v" is not an HTTP header name' },
  crlf_in_name: {
    schema: { type: "object", properties: { v: header("Region\r\nX-Injected: 1") } },
    why: 'x-mcp-header "Region\\r\\nX-Injected: 1" of property "v" is not an HTTP header name',
  },
  non_ascii_name: { schema: { type: "object", properties: { v: header("Région") } }, why: 'x-mcp-header "R\\u00e9gion" of property "v" is not an HTTP header name' },
  number_typed: {
    schema: { type: "object", properties: { score: { type: "number", "x-mcp-header": "Score" } } },
    why: 'x-mcp-header "Score" is on property "score" of type "number": only string, integer and boolean can be headers',
  },
  object_typed: { schema: { type: "object", properties: { data: { type: "object", "x-mcp-header": "Data" } } }, why: 'of type "object": only string, integer and boolean' },
  untyped: { schema: { type: "object", properties: { v: { "x-mcp-header": "V" } } }, why: 'x-mcp-header "V" is on property "v" of type (none)' },
  same_name_other_case: {
    schema: { type: "object", properties: { a: header("MyField"), b: header("myfield") } },
    why: 'x-mcp-header "myfield" of property "b" repeats "MyField" (header names ignore case)',
  },
  on_the_root: { schema: { type: "object", "x-mcp-header": "Root", properties: {} }, why: "x-mcp-header on the schema's root, which is not reached through \"properties\" alone" },
  under_items: {
    schema: { type: "object", properties: { list: { type: "array", items: header("Item") } } },
    why: 'x-mcp-header on property "list.<items>", which is not reached through "properties" alone',
  },
  under_any_of: {
    schema: { type: "object", properties: { v: { anyOf: [{ type: "object", properties: { w: header("W") } }] } } },
    why: 'x-mcp-header on property "v.<anyOf>.w", which is not reached through "properties" alone',
  },
  under_defs: { schema: { type: "object", $defs: { id: header("Id") }, properties: { id: { $ref: "#/$defs/id" } } }, why: 'property "<$defs>"' },
};

describe("tools whose x-mcp-header declarations are invalid (SEP-2243)", () => {
  it("are left out of the list, each with one log line naming it and why, while a valid tool is kept and still called with its headers", async () => {
    const listed = [
      { name: "route", description: "Echoes its arguments", inputSchema: ROUTE_SCHEMA },
      ...Object.entries(INVALID_TOOLS).map(([name, { schema }]) => ({ name, inputSchema: schema })),
    ];
    const { url, seen } = await serve((entry, id, res) => {
      if (entry.method !== "tools/list") return false;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id, result: { resultType: "complete", ttlMs: 0, cacheScope: "private", tools: listed } }));
      return true;
    });
    const hub = await connect({ remote: { url } });
    expect(hub.servers()[0]).toMatchObject({ status: "connected", protocolVersion: MODERN, toolCount: 1 });
    expect(hub.tools().map((tool) => tool.name)).toEqual(["route"]);

    const log = existsSync(stderrLogFile) ? readFileSync(stderrLogFile, "utf8") : "";
    const lines = log.split("\n").filter((line) => line.includes("tools/list: left out"));
    expect(lines).toHaveLength(Object.keys(INVALID_TOOLS).length);
    for (const [name, { why }] of Object.entries(INVALID_TOOLS)) {
      expect(lines.filter((line) => line.includes(`[remote] tools/list: left out "${name}": `) && line.includes(why)), name).toHaveLength(1);
    }

    const args = { region: "ap-south1", priority: 3 };
    const result: CallToolResult = await hub.callTool("route", args);
    expect(result.isError).toBeFalsy();
    const call = seen.filter((entry) => entry.method === "tools/call").at(-1);
    expect(call?.headers).toMatchObject({ "mcp-name": "route", "mcp-param-region": "ap-south1", "mcp-param-priority": "3" });
    await expect(hub.callTool("number_typed", { score: 1.5 })).rejects.toThrow(/number_typed/);
    expect(seen.filter((entry) => entry.method === "tools/call")).toHaveLength(1);
  }, 20_000);
});

describe("a -32022 answer to the server/discover probe (SEP-2575)", () => {
  it("is followed by exactly one retry in the version the error names, which connects", async () => {
    let refused = 0;
    const { url, seen } = await serve((entry, id, res) => entry.method === "server/discover" && refused++ === 0 && refuseVersion(res, id, [MODERN], versionOf(entry).header));
    const hub = await connect({ remote: { url } });
    expect(hub.servers()[0]).toMatchObject({ status: "connected", protocolVersion: MODERN });
    const probes = seen.filter((entry) => entry.method === "server/discover");
    expect(probes).toHaveLength(2);
    expect(versionOf(probes[1] as Seen)).toEqual({ header: MODERN, meta: MODERN });
    expect(hub.tools().map((tool) => tool.name)).toEqual(["route"]);
  }, 20_000);

  it("refused again after the retry, gives up with one line naming the server's versions, and tries no third time", async () => {
    const { url, seen } = await serve((entry, id, res) => refuseVersion(res, id, [MODERN], versionOf(entry).header));
    const hub = await connect({ remote: { url } });
    const state = hub.servers()[0];
    expect(state?.status).toBe("failed");
    expect(state?.error).not.toContain("\n");
    expect(state?.error).toBe(`cannot connect to ${url}: the server refused the protocol version again (-32022) after one retry in a version it names; it names: ${MODERN}`);
    expect(seen.map((entry) => entry.method)).toEqual(["server/discover", "server/discover"]);
  }, 20_000);
});
