import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { StreamableHTTPClientTransport as ModernHttpClientTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledServer, CLI_ENTRY } from "../../src/config/bundled-servers.js";
import type { ServerConfig } from "../../src/config/schema.js";
import { startHarness, type Harness } from "./harness.js";

/**
 * What the hub served as one MCP server relays beyond its lists (completions, log messages, resource
 * subscriptions), through the caller policy, to the official SDK clients of both eras, over `serve hub` (stdio)
 * and the gateway's `/mcp`, with server-everything (trusted) and the bundled time server (untrusted) behind it.
 */

const EVERYTHING = join(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const SERVERS: Record<string, ServerConfig> = {
  everything: { command: process.execPath, args: [EVERYTHING, "stdio"], trust: true, logLevel: "info" },
  time: { ...bundledServer("time"), trust: false },
};

/** The calls these tests make, which both SDK clients have under the same names. */
type HubClient = Pick<Client, "complete" | "getServerCapabilities" | "close">;

interface Front {
  name: string;
  open(): Promise<HubClient>;
}

let home: string;
let harness: Harness;
const config = () => join(home, "toolbridge.json");
const hubCommand = () => ({ command: process.execPath, args: [CLI_ENTRY, "serve", "hub", "--config", config()], stderr: "pipe" as const });

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "toolbridge-hub-relays-"));
  writeFileSync(config(), JSON.stringify({ mcpServers: SERVERS }));
  harness = await startHarness({ servers: SERVERS, approve: "ask" });
}, 60_000);
afterAll(async () => {
  await harness?.close();
  rmSync(home, { recursive: true, force: true });
});

async function connected<T extends { connect(transport: never): Promise<void> }>(client: T, transport: unknown): Promise<T> {
  await client.connect(transport as never);
  return client;
}

const FRONTS: Front[] = [
  { name: "serve hub, a 2025-11-25 client (SDK v1)", open: () => connected(new Client({ name: "test", version: "1.0.0" }), new StdioClientTransport(hubCommand())) },
  {
    name: "serve hub, a 2026-07-28 client (SDK v2)",
    open: () => connected(new ModernClient({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } }), new ModernStdioClientTransport(hubCommand())) as unknown as Promise<HubClient>,
  },
  { name: "/mcp, a 2025-11-25 client (SDK v1)", open: () => connected(new Client({ name: "test", version: "1.0.0" }), new StreamableHTTPClientTransport(new URL(`${harness.gateway.url}/mcp`))) },
  {
    name: "/mcp, a 2026-07-28 client (SDK v2)",
    open: () =>
      connected(new ModernClient({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } }), new ModernHttpClientTransport(new URL(`${harness.gateway.url}/mcp`))) as unknown as Promise<HubClient>,
  },
];

describe.each(FRONTS)("$name", (front) => {
  let client: HubClient;
  beforeAll(async () => {
    client = await front.open();
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  it("speaks the era its client asked for", () => {
    const era = (client as Partial<Pick<ModernClient, "getProtocolEra">>).getProtocolEra?.();
    expect(era ?? "legacy").toBe(front.name.includes("2026-07-28") ? "modern" : "legacy");
  });

  it("declares completions, and relays a prompt argument's completion (with its context) to the server that offers the prompt", async () => {
    expect(client.getServerCapabilities()?.completions).toBeDefined();
    const department = await client.complete({ ref: { type: "ref/prompt", name: "completable-prompt" }, argument: { name: "department", value: "En" } });
    expect(department.completion.values).toEqual(["Engineering"]);
    const name = await client.complete({
      ref: { type: "ref/prompt", name: "completable-prompt" },
      argument: { name: "name", value: "" },
      context: { arguments: { department: "Sales" } },
    });
    expect(name.completion.values).toEqual(["David", "Eve", "Frank"]);
  });

  it("relays a resource template variable's completion to the server that offers the template", async () => {
    const result = await client.complete({ ref: { type: "ref/resource", uri: "demo://resource/dynamic/text/{resourceId}" }, argument: { name: "resourceId", value: "7" } });
    expect(result.completion.values).toEqual(["7"]);
  });

  it("completes nothing of a server the caller may not read: its prompt is unknown here", async () => {
    // The untrusted time server offers a completable prompt (time-in); nobody can be asked here, so it is not this client's.
    await expect(client.complete({ ref: { type: "ref/prompt", name: "time-in" }, argument: { name: "place", value: "Tai" } })).rejects.toThrow(/Unknown prompt: time-in/);
    await expect(client.complete({ ref: { type: "ref/resource", uri: "time://now/{+timezone}" }, argument: { name: "timezone", value: "Asia" } })).rejects.toThrow(/Unknown resource template/);
  });
});

describe("the completions capability", () => {
  it("is declared only where a server the caller may read offers completions", async () => {
    const untrusted = await startHarness({ servers: { time: SERVERS.time! }, approve: "ask" });
    const capabilities = async (url: string) => {
      const client = new ModernClient({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
      try {
        await client.connect(new ModernHttpClientTransport(new URL(`${url}/mcp`)));
        return client.getServerCapabilities();
      } finally {
        await client.close();
      }
    };
    try {
      expect((await capabilities(harness.gateway.url))?.completions).toBeDefined();
      // The time server offers completions, but nobody can be asked here to let its prompts be read.
      expect((await capabilities(untrusted.gateway.url))?.completions).toBeUndefined();
    } finally {
      await untrusted.close();
    }
  }, 60_000);
});

describe("resource subscriptions of a 2025-11-25 client", () => {
  it("on serve hub: subscribes at the resource's server and passes its updates on; a resource the caller may not read is unknown", async () => {
    const client = new Client({ name: "test", version: "1.0.0" });
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updated.push(notification.params.uri));
    try {
      await client.connect(new StdioClientTransport(hubCommand()));
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      const { resources } = await client.listResources();
      const uri = resources.find((resource) => resource.uri.startsWith("demo://"))!.uri;
      await client.subscribeResource({ uri });
      // server-everything sends an update of each resource subscribed to at once, then every 5 s.
      await client.callTool({ name: "toggle-subscriber-updates", arguments: {} });
      await expect.poll(() => updated, { timeout: 20_000 }).toContain(uri);
      // The untrusted time server's resources are not this client's: nobody can be asked here.
      await expect(client.subscribeResource({ uri: "time://zones" })).rejects.toThrow(/Resource not found/);
      await client.unsubscribeResource({ uri });
    } finally {
      await client.close();
    }
  }, 60_000);

  it("on /mcp: not declared, and refused saying why when asked anyway (nothing outlives a request there to carry an update)", async () => {
    const client = await connected(new Client({ name: "test", version: "1.0.0" }), new StreamableHTTPClientTransport(new URL(`${harness.gateway.url}/mcp`)));
    try {
      expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: true });
      const { resources } = await client.listResources();
      const uri = resources.find((resource) => resource.uri.startsWith("demo://"))!.uri;
      await expect(client.subscribeResource({ uri })).rejects.toThrow(/stateless.*subscriptions\/listen/);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe.each([
  { name: "/mcp", transport: () => new ModernHttpClientTransport(new URL(`${harness.gateway.url}/mcp`)) },
  { name: "serve hub", transport: () => new ModernStdioClientTransport(hubCommand()) },
])("resource subscriptions of a 2026-07-28 client of $name (subscriptions/listen)", ({ transport }) => {
  it("are held at the resource's server while the stream is open, its updates passed on; a resource the caller may not read is not honored", async () => {
    const client = new ModernClient({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    const updated: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (notification) => void updated.push(notification.params.uri));
    try {
      await client.connect(transport());
      expect(client.getProtocolEra()).toBe("modern");
      const { resources } = await client.listResources();
      const uri = resources.find((resource) => resource.uri.startsWith("demo://"))!.uri;
      const subscription = await client.listen({ resourceSubscriptions: [uri, "time://zones"] });
      // The untrusted time server's resource is not this client's: the acknowledgement leaves it out.
      expect(subscription.honoredFilter.resourceSubscriptions).toEqual([uri]);
      await client.callTool({ name: "toggle-subscriber-updates", arguments: {} });
      await expect.poll(() => updated, { timeout: 20_000 }).toContain(uri);
      expect(updated).not.toContain("time://zones");
      await subscription.close();
      // Stopped again: server-everything's updates are one toggle for all its subscribers.
      await client.callTool({ name: "toggle-subscriber-updates", arguments: {} });
    } finally {
      await client.close();
    }
  }, 60_000);
});
