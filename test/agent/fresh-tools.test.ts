import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { ToolCallingMiddlewares } from "../../src/agent/tool-mode.js";
import type { ChatRequest } from "../../src/llm/types.js";
import type { Hub } from "../../src/mcp/hub.js";
import { hubPerTest } from "../mcp/hub-per-test.js";
import { fixture } from "../mcp/processes.js";
import { CLI } from "../servers/serve-process.js";
import { FakeModel, allowAll, calls, text } from "./fakes.js";

/**
 * Before each model request the agent brings the hub's tools up to date where a 2026-07-28 server's caching hint
 * (ttlMs) says its list went stale. test/fixtures/servers/cache-hints.mjs is a real v2 server; with --quiet it
 * declares no tools listChanged, so a tool it adds is seen only by listing its tools again.
 */

const identity: ToolCallingMiddlewares = { prompt: (m) => m, textFallback: (m) => m };
const { stderrLogFile, connect } = hubPerTest("toolbridge-fresh-tools-");
const HOUR = 3_600_000;

const offered = (request: ChatRequest | undefined): string[] => (request?.tools ?? []).map((tool) => tool.name).sort();

async function listCount(hub: Hub): Promise<number> {
  const block = (await hub.callTool("list-counts", {})).content[0];
  return (JSON.parse(block?.type === "text" ? block.text : "{}") as Record<string, number>)["tools/list"] ?? -1;
}

describe("the tools offered to the model", () => {
  it("are listed again before a model request when the server's ttlMs says they went stale: the next turn offers a tool added meanwhile", async () => {
    const hub = await connect({ hints: fixture("cache-hints.mjs", "--ttl", "0", "--quiet", "--can-hang") });
    const model = new FakeModel([text("first"), text("second")]);
    const agent = new Agent({ model, tools: hub, approval: allowAll, toolCalling: identity });
    expect((await agent.send("one")).status).toBe("completed");
    await hub.callTool("add-tool", { name: "later" });
    expect((await agent.send("two")).status).toBe("completed");
    expect(offered(model.requests[0])).toEqual(["add-tool", "hang-lists", "list-counts"]);
    expect(offered(model.requests[1])).toEqual(["add-tool", "hang-lists", "later", "list-counts"]);
    // One listing at the start, and one before each of the two model requests.
    expect(await listCount(hub)).toBe(3);
  }, 20_000);

  it("are not listed again while the server's ttlMs says they are fresh", async () => {
    const hub = await connect({ hints: fixture("cache-hints.mjs", "--ttl", String(HOUR), "--quiet", "--can-hang") });
    const model = new FakeModel([calls(["c1", "add-tool", '{"name":"later"}']), text("added"), text("again")]);
    const agent = new Agent({ model, tools: hub, approval: allowAll, toolCalling: identity });
    expect((await agent.send("add a tool")).toolCalls[0]?.outcome).toBe("ok");
    expect((await agent.send("again")).status).toBe("completed");
    expect(model.requests.map(offered)).toEqual(Array(3).fill(["add-tool", "hang-lists", "list-counts"]));
    expect(await listCount(hub)).toBe(1);
  }, 20_000);

  it("stay as they were when listing them again gets no answer within toolTimeoutMs: the turn goes on, with one log line", async () => {
    const hub = await connect({ hints: { ...fixture("cache-hints.mjs", "--ttl", "0", "--quiet", "--can-hang"), toolTimeoutMs: 500 } });
    const model = new FakeModel([calls(["c1", "hang-lists", "{}"]), text("answered anyway")]);
    const agent = new Agent({ model, tools: hub, approval: allowAll, toolCalling: identity });
    const turn = await agent.send("hang");
    expect(turn).toMatchObject({ status: "completed", text: "answered anyway" });
    expect(offered(model.requests[1])).toEqual(["add-tool", "hang-lists", "list-counts"]);
    const lines = readFileSync(stderrLogFile, "utf8").split("\n").filter((line) => line.includes("[hints] could not refresh tools"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("could not refresh tools: no answer within 500 ms (toolTimeoutMs); kept the list it gave before");
  }, 20_000);

  it("a turn cancelled while they are listed again ends as aborted at once", async () => {
    const hub = await connect({ hints: { ...fixture("cache-hints.mjs", "--ttl", "0", "--quiet", "--can-hang"), toolTimeoutMs: 60_000 } });
    await hub.callTool("hang-lists", {});
    const model = new FakeModel([text("never asked")]);
    const agent = new Agent({ model, tools: hub, approval: allowAll, toolCalling: identity });
    const controller = new AbortController();
    const turn = agent.send("hang", { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    expect((await turn).status).toBe("aborted");
    expect(model.requests).toHaveLength(0);
  }, 20_000);

  it("of the bundled servers are fresh for a day by their lists' caching hints (a read of the current time is not held)", async () => {
    const raw = { "~standard": { version: 1, vendor: "test", validate: (value: unknown) => ({ value }) } } as const;
    for (const name of ["time", "math"]) {
      const client = new Client({ name: "test", version: "1" }, { versionNegotiation: { mode: "auto" } });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "serve", name] }));
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
        expect(await client.request({ method: "tools/list", params: {} }, raw)).toMatchObject({ ttlMs: 86_400_000, cacheScope: "public" });
        if (name === "time") {
          expect(await client.request({ method: "prompts/list", params: {} }, raw)).toMatchObject({ ttlMs: 86_400_000 });
          expect(await client.request({ method: "resources/read", params: { uri: "time://now/UTC" } }, raw)).toMatchObject({ ttlMs: 0 });
        }
      } finally {
        await client.close();
      }
    }
  }, 20_000);
});
