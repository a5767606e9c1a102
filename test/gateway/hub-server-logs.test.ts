import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client as ModernClient, InMemoryTransport, LOG_LEVEL_META_KEY, StreamableHTTPClientTransport as ModernHttpClientTransport } from "@modelcontextprotocol/client";
import type { LoggingMessageNotificationParams } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_ENTRY } from "../../src/config/bundled-servers.js";
import { createHubServer, publishHubChanges, serverNotifier } from "../../src/gateway/hub-server.js";
import { LOG_BURST } from "../../src/gateway/hub-server-logs.js";
import { TaskStore } from "../../src/mcp/tasks/ext-tasks-server.js";
import { hubPerTest } from "../mcp/hub-per-test.js";
import { fixture } from "../mcp/processes.js";
import { startHarness, type Harness } from "./harness.js";

/**
 * Servers' log messages (notifications/message) passed on by the hub served as one MCP server: tagged with the
 * server, only of servers the caller may see, at the client's level, and bounded against a server flooding its log.
 */

const FLOOD = 2000;
const LOUD = { ...fixture("log-flood.mjs"), trust: true };
const isNotice = (message: LoggingMessageNotificationParams) => message.logger === "toolbridge";
const floodLines = (messages: LoggingMessageNotificationParams[]) => messages.filter((message) => String(message.data).startsWith("flood "));

describe("a 2025-11-25 client on a connection that lives on (serve hub's)", () => {
  const { connect } = hubPerTest("toolbridge-hub-server-logs-");

  it("hears the log messages of servers it may see, tagged with the server, at the level it set, and none of a server it may not see", async () => {
    const servers = { loud: LOUD, hidden: { ...fixture("log-flood.mjs"), trust: false } };
    const hub = await connect(servers);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = createHubServer(hub, { approve: "ask", servers }, new TaskStore());
    // As `serve hub` does for each connection.
    const unpublish = publishHubChanges(hub, serverNotifier(server));
    await server.connect(serverSide);
    const client = new ModernClient({ name: "test", version: "1.0.0" });
    const heard: LoggingMessageNotificationParams[] = [];
    client.setNotificationHandler("notifications/message", (notification) => void heard.push(notification.params));
    await client.connect(clientSide);
    const toolOf = (serverName: string) => hub.tools().find((tool) => tool.server === serverName && tool.originalName === "say")!.name;
    try {
      expect(client.getServerCapabilities()?.logging).toBeDefined();
      // The untrusted server's tools are not this client's to run, nor its log its to read.
      await hub.callTool(toolOf("hidden"), { text: "a secret of the hidden server" });
      await client.callTool({ name: toolOf("loud"), arguments: { text: "seen" } });
      await expect.poll(() => heard.map((message) => message.data)).toContain("seen");
      expect(heard.find((message) => message.data === "seen")).toEqual({ level: "error", logger: "loud/noise", data: "seen" });
      expect(JSON.stringify(heard)).not.toContain("secret");

      await client.setLoggingLevel("critical");
      await client.callTool({ name: toolOf("loud"), arguments: { text: "below the level" } });
      await client.callTool({ name: toolOf("loud"), arguments: { text: "at the level", level: "critical" } });
      await expect.poll(() => heard.map((message) => message.data)).toContain("at the level");
      expect(heard.map((message) => message.data)).not.toContain("below the level");
    } finally {
      unpublish();
      await client.close();
      await server.close();
    }
  }, 30_000);
});

describe("a server flooding its log", () => {
  let home: string;
  let harness: Harness;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "toolbridge-hub-server-flood-"));
    writeFileSync(join(home, "toolbridge.json"), JSON.stringify({ mcpServers: { loud: LOUD } }));
    harness = await startHarness({ servers: { loud: LOUD }, approve: "ask" });
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
    rmSync(home, { recursive: true, force: true });
  });

  /** What one flood of the server's leaves of its messages, and the hub's lines about it, by the time `done` says so. */
  function expectBounded(heard: LoggingMessageNotificationParams[]): void {
    const passed = floodLines(heard);
    expect(passed.length).toBeGreaterThanOrEqual(1);
    // The first LOG_BURST pass; the rest of the flood is far faster than the rate that follows (a few a second).
    expect(passed.length).toBeLessThan(FLOOD / 4);
    expect(passed.slice(0, LOG_BURST).map((message) => message.data)).toEqual(Array.from({ length: LOG_BURST }, (_, i) => `flood ${i + 1}`));
    const notices = heard.filter(isNotice).map((message) => String(message.data));
    expect(notices[0]).toMatch(/^server "loud" logs more than 50 messages at once or 10 a second: its messages are dropped here until it slows down$/);
  }

  it("reaches a 2025-11-25 client of serve hub bounded, with one line saying its messages are dropped", async () => {
    const client = new Client({ name: "test", version: "1.0.0" });
    const heard: LoggingMessageNotificationParams[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void heard.push(notification.params));
    try {
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI_ENTRY, "serve", "hub", "--config", join(home, "toolbridge.json")], stderr: "pipe" }));
      await client.callTool({ name: "flood", arguments: { count: FLOOD } });
      await expect.poll(() => heard.some(isNotice)).toBe(true);
      expectBounded(heard);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("reaches a 2025-11-25 client of /mcp bounded, on the call's own stream", async () => {
    const client = new Client({ name: "test", version: "1.0.0" });
    const heard: LoggingMessageNotificationParams[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void heard.push(notification.params));
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${harness.gateway.url}/mcp`)));
      await client.callTool({ name: "flood", arguments: { count: FLOOD } });
      expectBounded(heard);
    } finally {
      await client.close();
    }
  }, 60_000);

  it("reaches a 2026-07-28 client of /mcp bounded, during the call that names a log level, and not at all without one", async () => {
    const client = new ModernClient({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    const heard: LoggingMessageNotificationParams[] = [];
    client.setNotificationHandler("notifications/message", (notification) => void heard.push(notification.params));
    try {
      await client.connect(new ModernHttpClientTransport(new URL(`${harness.gateway.url}/mcp`)));
      expect(client.getProtocolEra()).toBe("modern");
      await client.callTool({ name: "say", arguments: { text: "unasked for" } });
      expect(heard).toEqual([]);
      await client.callTool({ name: "flood", arguments: { count: FLOOD }, _meta: { [LOG_LEVEL_META_KEY]: "info" } });
      expectBounded(heard);
    } finally {
      await client.close();
    }
  }, 60_000);
});
