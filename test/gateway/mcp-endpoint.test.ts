import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledServer, CLI_ENTRY } from "../../src/config/bundled-servers.js";
import { serverSuite, type ServerSuiteRun } from "../support/conformance.js";
import { RELAYED_INPUT_REQUIRED, STATELESS_FIXTURE_CHECKS } from "../support/conformance-server-scope.js";
import { childPids, isAlive } from "../support/processes.js";
import { startHarness, type Harness } from "./harness.js";

/** The hub as one MCP server: the official SDK client against the gateway's /mcp and against `serve hub` on stdio. */

const SERVERS = { time: { ...bundledServer("time"), trust: false }, math: bundledServer("math") };

function text(result: Record<string, unknown>): string {
  return (result.content as { type: string; text?: string }[]).map((part) => part.text ?? "").join("");
}

describe("the gateway's /mcp", () => {
  let harness: Harness;
  let client: Client;

  beforeAll(async () => {
    harness = await startHarness({ servers: SERVERS, approve: "ask" });
    client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${harness.gateway.url}/mcp`)));
  }, 60_000);
  afterAll(async () => {
    await client.close();
    await harness.close();
  });

  it("lists only the tools the policy lets run unasked, under the registry's names", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["add", "subtract"]));
    // The untrusted time server's tool would only be refused: nobody can be asked here.
    expect(tools.map((tool) => tool.name)).not.toContain("get-date");
  });

  it("runs a tool the policy allows (a trusted server's)", async () => {
    const result = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain("5");
  });

  it("refuses, with a tool result, a tool the policy does not allow", async () => {
    const result = await client.callTool({ name: "get-date", arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("Not run");
  });

  it("serves no resource or prompt of a server the policy does not let be read", async () => {
    expect((await client.listResources()).resources.map((resource) => resource.uri)).not.toContain("time://zones");
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    await expect(client.readResource({ uri: "time://zones" })).rejects.toThrow(/Resource not found: time:\/\/zones/);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).not.toContain("time-in");
    await expect(client.getPrompt({ name: "time-in", arguments: { place: "Taipei" } })).rejects.toThrow(/Unknown prompt: time-in/);
  });

  it("serves the resources and prompts of a trusted server", async () => {
    const trusted = await startHarness({ servers: { time: bundledServer("time") }, approve: "ask" });
    const reader = new Client({ name: "test", version: "1.0.0" });
    try {
      await reader.connect(new StreamableHTTPClientTransport(new URL(`${trusted.gateway.url}/mcp`)));
      const { resources } = await reader.listResources();
      expect(resources.map((resource) => resource.uri)).toContain("time://zones");
      const zones = await reader.readResource({ uri: "time://zones" });
      expect(JSON.stringify(zones.contents)).toContain("Asia/Taipei");
      const { prompts } = await reader.listPrompts();
      expect(prompts.map((prompt) => prompt.name)).toContain("time-in");
      const prompt = await reader.getPrompt({ name: "time-in", arguments: { place: "Taipei" } });
      expect(JSON.stringify(prompt.messages)).toContain("Taipei");
      // The server's error, relayed: the client's own "MCP error -32602: " prefix once, not the hub's too.
      const error = (await reader.getPrompt({ name: "time-in", arguments: {} }).catch((caught: unknown) => caught)) as Error;
      expect(error.message).toMatch(/^MCP error -32602: /);
      expect(error.message.match(/MCP error/g)).toHaveLength(1);
    } finally {
      await reader.close();
      await trusted.close();
    }
  }, 60_000);

  it("needs the API key when the gateway has keys", async () => {
    const keyed = await startHarness({ servers: { math: bundledServer("math") }, apiKeys: ["tb-mcp-key-0123456789abcdef"] });
    try {
      const denied = new Client({ name: "test", version: "1.0.0" });
      await expect(denied.connect(new StreamableHTTPClientTransport(new URL(`${keyed.gateway.url}/mcp`)))).rejects.toThrow(/Missing or wrong API key/);
      const allowed = new Client({ name: "test", version: "1.0.0" });
      await allowed.connect(
        new StreamableHTTPClientTransport(new URL(`${keyed.gateway.url}/mcp`), { requestInit: { headers: { authorization: "Bearer tb-mcp-key-0123456789abcdef" } } }),
      );
      expect((await allowed.listTools()).tools.length).toBeGreaterThan(0);
      await allowed.close();
    } finally {
      await keyed.close();
    }
  }, 60_000);
});

describe("toolbridge serve hub (stdio)", () => {
  it("serves the configured servers' tools as one, with the policy, and leaves no process behind", async () => {
    const home = mkdtempSync(join(tmpdir(), "toolbridge-serve-hub-"));
    const config = join(home, "toolbridge.json");
    writeFileSync(config, JSON.stringify({ mcpServers: SERVERS }));
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_ENTRY, "serve", "hub", "--config", config, "--approve", "readonly"], stderr: "pipe" });
    const client = new Client({ name: "test", version: "1.0.0" });
    try {
      await client.connect(transport);
      const pid = transport.pid as number;
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["get-date", "add"]));
      // readonly: the untrusted time server's read-only tool runs.
      const result = await client.callTool({ name: "get-date", arguments: { format: "iso" } });
      expect(result.isError).toBeFalsy();
      expect(text(result)).toContain(String(new Date().getFullYear()));
      // The two servers; the orphan watchdog (a /bin/sh) is a child too.
      const servers = childPids(pid).filter((child) => readFileSync(`/proc/${child}/comm`, "utf8").trim() !== "sh");
      expect(servers.length).toBe(2);
      await client.close();
      await expect.poll(() => isAlive(pid), { timeout: 15_000 }).toBe(false);
      for (const server of servers) await expect.poll(() => isAlive(server), { timeout: 15_000 }).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("toolbridge serve hub relays a server's questions to its client", () => {
  let home: string;
  let config: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), "toolbridge-serve-hub-relay-"));
    config = join(home, "toolbridge.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { asks: INPUT_REQUIRED_SERVER } }));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const hubCommand = () => ({ command: process.execPath, args: [CLI_ENTRY, "serve", "hub", "--config", config], stderr: "pipe" as const });

  it("to a 2026-07-28 client (the v2 client) as input_required results, two rounds, the server's request state back untouched", async () => {
    const asked: string[] = [];
    const client = new ModernClient({ name: "test", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "auto" } });
    const answers: Record<string, string> = { name: "Ada", color: "blue", context: "Ada's notes" };
    client.setRequestHandler("elicitation/create", (request) => {
      asked.push(request.params.message);
      const fields = request.params.mode === "url" ? [] : Object.keys(request.params.requestedSchema.properties);
      return { action: "accept", content: Object.fromEntries(fields.map((field) => [field, answers[field] ?? ""])) };
    });
    try {
      await client.connect(new ModernStdioClientTransport(hubCommand()));
      expect(client.getProtocolEra()).toBe("modern");
      const result = await client.callTool({ name: "test_input_required_result_multi_round", arguments: {} });
      // The server's state is HMAC-signed: any change on the way would have failed the call.
      expect(text(result)).toBe("done after two rounds");
      expect(asked).toEqual(["What is your name?", "Favourite colour?"]);
      const prompt = await client.getPrompt({ name: "test_input_required_result_prompt" });
      expect(JSON.stringify(prompt.messages)).toContain("Context: Ada's notes");
      // It declared elicitation and not sampling: the server asks only the form (the hub passes on what the client declared).
      asked.length = 0;
      expect(text(await client.callTool({ name: "test_input_required_result_capabilities", arguments: {} }))).toBe("answered");
      expect(asked).toEqual(["What is your name?"]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("to a 2025-11-25 client (the v1 client) as elicitation requests", async () => {
    const client = new Client({ name: "test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { name: "Grace" } }));
    try {
      await client.connect(new StdioClientTransport(hubCommand()));
      const result = await client.callTool({ name: "test_input_required_result_elicitation", arguments: {} });
      expect(text(result)).toBe("Hello, Grace!");
    } finally {
      await client.close();
    }
  }, 60_000);

});

// The scenarios that judge any server (the others call the suite's own fixture tools).
// server-sse-multiple-streams needs sessions and a GET stream: /mcp is stateless by design.
const SCENARIOS = ["server-initialize", "ping", "tools-list", "resources-list", "prompts-list", "dns-rebinding-protection"];
/**
 * 0.2.0-alpha.12 (2026-07-28 too); server-stateless is looked at check by check. The
 * input-required-result-* ones call fixtures a server behind the hub has (input-required-server.mjs):
 * they judge the hub's relay of that server's questions, answers and request state.
 */
const SCENARIOS_NEXT = [...SCENARIOS, "http-header-validation", "caching", "sep-2164-resource-not-found", ...RELAYED_INPUT_REQUIRED];
/** A server behind the hub that asks its client through input_required results. */
const INPUT_REQUIRED_SERVER = { command: process.execPath, args: [fileURLToPath(new URL("../fixtures/servers/input-required-server.mjs", import.meta.url))], trust: true };

describe("conformance of the gateway's /mcp", () => {
  let harness: Harness;
  let current: ServerSuiteRun;
  let next: ServerSuiteRun;

  beforeAll(async () => {
    harness = await startHarness({ servers: { time: bundledServer("time"), asks: INPUT_REQUIRED_SERVER } });
    const url = `${harness.gateway.url}/mcp`;
    [current, next] = await Promise.all([serverSuite(url, "current", 200_000), serverSuite(url, "next", 200_000)]);
  }, 240_000);
  afterAll(async () => {
    await harness.close();
  });

  const passes = (run: ServerSuiteRun, scenario: string) => {
    const checks = run.checks(scenario).filter((check) => check.status !== "INFO");
    expect(checks.length, run.log).toBeGreaterThan(0);
    expect(checks.filter((check) => check.status !== "SUCCESS"), run.log).toEqual([]);
  };
  it.each(SCENARIOS)("passes %s (0.1.16)", (scenario) => passes(current, scenario));
  it.each(SCENARIOS_NEXT)("passes %s (0.2.0-alpha.12)", (scenario) => passes(next, scenario));

  it("serves 2026-07-28 statelessly: server/discover, the _meta envelope, subscriptions/listen (server-stateless, 0.2.0-alpha.12)", () => {
    const checks = next.checks("server-stateless");
    expect(checks.filter((check) => check.status === "SUCCESS").length, next.log).toBeGreaterThan(20);
    const failed = checks.filter((check) => check.status === "FAILURE");
    expect(failed.map((check) => check.id).sort()).toEqual([...STATELESS_FIXTURE_CHECKS].sort());
    for (const check of failed) expect(check.errorMessage).toMatch(/^Not testable/);
  });
});
