import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { SKILL_TOOL_NAME } from "../../src/agent/skills.js";
import type { ToolCallingMiddlewares } from "../../src/agent/tool-mode.js";
import type { ChatRequest } from "../../src/llm/types.js";
import { hubPerTest } from "../mcp/hub-per-test.js";
import { serversClosedAfterEach } from "../support/closed-after-each.js";
import { readBody } from "../support/read-body.js";
import { fixture } from "../mcp/processes.js";
import { FakeModel, allowAll, calls, text } from "./fakes.js";

/**
 * Before each model request the agent has the hub list again what a 2026-07-28 server's caching hint says went stale.
 * The servers here are real v2 SDK servers over Streamable HTTP, in this process, behind a front that counts (and,
 * for the hostile one, refuses) list requests.
 */

const identity: ToolCallingMiddlewares = { prompt: (m) => m, textFallback: (m) => m };
const { stderrLogFile, connect } = hubPerTest("toolbridge-list-refresh-");
const offered = (request: ChatRequest | undefined): string[] => (request?.tools ?? []).map((tool) => tool.name).sort();

const servers = serversClosedAfterEach();

/** A v2 server whose tools list is never fresh (ttlMs 0) and whose changes it never announces; `refuse` answers a request with an error instead. */
async function serve(refuse: (method: string) => boolean): Promise<{ url: string; lists: () => number }> {
  const build = (): McpServer => {
    const server = new McpServer(
      { name: "flaky", version: "1.0.0" },
      { capabilities: { tools: { listChanged: false } }, cacheHints: { "tools/list": { ttlMs: 0, cacheScope: "public" } } },
    );
    server.registerTool("echo", { description: "Says hello" }, async () => ({ content: [{ type: "text", text: "hello" }] }));
    return server;
  };
  const handler = toNodeHandler(createMcpHandler(build, { legacy: "reject" }));
  let lists = 0;
  const server = createServer((req, res) => {
    if (req.method !== "POST") return void handler(req, res);
    void readBody(req).then((raw) => {
      const body = JSON.parse(raw) as { id?: unknown; method?: string };
      if (body.method === "tools/list") lists++;
      if (body.method === undefined || !refuse(body.method)) return void handler(req, res, body);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: body.id ?? null, error: { code: -32603, message: "tools/list is broken today" } }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, lists: () => lists };
}

describe("listing again before a model request", () => {
  it("a server whose tools/list keeps failing is tried again after a growing back-off, not before every model request, and said once", async () => {
    let broken = false;
    const { url, lists } = await serve((method) => broken && method === "tools/list");
    const hub = await connect({ flaky: { url } });
    expect(lists()).toBe(1);
    broken = true;
    const requests = 20;
    const model = new FakeModel(Array.from({ length: requests }, (_, n) => text(`answer ${n}`)));
    const agent = new Agent({ model, tools: hub, approval: allowAll, toolCalling: identity });
    for (let n = 0; n < requests; n++) expect((await agent.send(`question ${n}`)).status).toBe("completed");
    // The last good list is offered all along.
    expect(model.requests.map(offered)).toEqual(Array(requests).fill(["echo"]));
    // Tries 1 s, 2 s, 4 s, 8 s apart: a sixth failed try would take 31 s of model requests; each request tried without it.
    const failed = lists() - 1;
    expect(failed).toBeGreaterThanOrEqual(1);
    expect(failed).toBeLessThanOrEqual(5);
    const lines = readFileSync(stderrLogFile, "utf8").split("\n").filter((line) => line.includes("[flaky] could not refresh tools"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("tools/list is broken today");
    expect(lines[0]).toContain("kept the list it gave before, and while listing it keeps failing, tries again 1 s later, doubling up to 60 s (said once)");
  }, 60_000);

  it("a skill a server adds mid-conversation, announced as a resources list change, is in the next model request's load_skill, its file unread", async () => {
    const hub = await connect({ docs: fixture("skills-server.mjs", "--can-learn") });
    expect(hub.servers()[0]).toMatchObject({ status: "connected", protocolVersion: "2026-07-28" });
    const model = new FakeModel([calls(["c1", "learn", '{"name":"haiku-writing"}']), text("learnt")]);
    const agent = new Agent({ model, tools: hub, skills: hub, approval: allowAll, toolCalling: identity });
    const turn = await agent.send("learn a skill");
    expect(turn.toolCalls[0], JSON.stringify(turn.toolCalls[0])).toMatchObject({ outcome: "ok" });
    const loadSkill = (request: ChatRequest | undefined) => request?.tools?.find((tool) => tool.name === SKILL_TOOL_NAME)?.description ?? "";
    expect(loadSkill(model.requests[0])).not.toContain("haiku-writing");
    expect(loadSkill(model.requests[1])).toContain("Learnt mid-conversation as haiku-writing");
    // Listed, never read ahead of need.
    expect(readFileSync(stderrLogFile, "utf8")).not.toContain("read skill://");
  }, 30_000);
});
