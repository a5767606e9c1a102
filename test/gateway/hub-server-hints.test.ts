import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { createHubServer } from "../../src/gateway/hub-server.js";
import { TaskStore } from "../../src/mcp/tasks/ext-tasks-server.js";
import type { CallToolResult } from "../../src/mcp/types.js";
import { hubPerTest } from "../mcp/hub-per-test.js";
import { fixture } from "../mcp/processes.js";

/** The gateway's MCP tools/list follows the caching hints of the servers behind it (test/fixtures/servers/cache-hints.mjs). */

const { connect } = hubPerTest("toolbridge-hub-server-hints-");

describe("the gateway's tools/list", () => {
  it.each([
    ["still fresh by its ttlMs is answered from the list held", 3_600_000, 1],
    ["with ttlMs 0, of a server that announces no changes, is listed again for each tools/list", 0, 3],
  ])("a server's tools list %s", async (_, ttl, listings) => {
    const hub = await connect({ hints: fixture("cache-hints.mjs", "--ttl", String(ttl), "--quiet") });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = createHubServer(hub, { approve: "all", servers: {} }, new TaskStore());
    await server.connect(serverSide);
    const client = new Client({ name: "gateway-client", version: "1.0.0" });
    await client.connect(clientSide);
    try {
      for (let call = 0; call < 2; call++) {
        const { tools } = await client.listTools(undefined, { cacheMode: "refresh" });
        expect(tools.map((tool) => tool.name).sort()).toEqual(["add-tool", "list-counts"]);
      }
      const counted: CallToolResult = await hub.callTool("list-counts", {});
      const block = counted.content[0];
      expect((JSON.parse(block?.type === "text" ? block.text : "{}") as Record<string, number>)["tools/list"]).toBe(listings);
    } finally {
      await client.close();
      await server.close();
    }
  }, 20_000);
});
