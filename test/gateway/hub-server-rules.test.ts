import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { createHubServer } from "../../src/gateway/hub-server.js";
import { TaskStore } from "../../src/mcp/tasks/ext-tasks-server.js";
import { hubPerTest } from "../mcp/hub-per-test.js";
import { fixture } from "../mcp/processes.js";

/** The gateway's /mcp (and `serve hub`) follow the config's allow and deny rules by pattern. */

const { connect } = hubPerTest("toolbridge-hub-server-rules-");

describe("the hub's MCP endpoint under rules by pattern", () => {
  it("lists and runs what an allow rule covers, and hides and refuses what a deny rule covers, even with approve all", async () => {
    const hub = await connect({ hints: fixture("cache-hints.mjs", "--ttl", "3600000", "--quiet") });
    const pairs = [
      [{ approve: "ask" as const, servers: {}, rules: { allow: ["hints__list-*"] } }, ["list-counts"]],
      [{ approve: "all" as const, servers: {}, rules: { deny: ["hints__add-*"] } }, ["list-counts"]],
    ] as const;
    for (const [policy, listed] of pairs) {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const server = createHubServer(hub, policy, new TaskStore());
      await server.connect(serverSide);
      const client = new Client({ name: "gateway-client", version: "1.0.0" });
      await client.connect(clientSide);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name).sort()).toEqual(listed);
        const refused = await client.callTool({ name: "add-tool", arguments: {} });
        expect(refused.isError).toBe(true);
        if (policy.approve === "all") expect((refused.content as Array<{ text?: string }>)[0]?.text).toContain('denied by the rule "hints__add-*"');
      } finally {
        await client.close();
        await server.close();
      }
    }
  }, 20_000);
});
