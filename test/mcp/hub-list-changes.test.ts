import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hub } from "../../src/mcp/hub.js";
import type { HubEvent } from "../../src/mcp/types.js";
import { expectNoChildren, waitUntil } from "./processes.js";

const dir = mkdtempSync(join(tmpdir(), "toolbridge-list-changes-"));

/**
 * A raw stdio server that, once initialized, changes its tools and says so NOTICES times, while the hub's first
 * tools/list is on its way; it answers each tools/list 100 ms late, and its tool `count` tells how many it got.
 */
const SERVER = `
const NOTICES = 20;
let tools = ["early"];
let lists = 0;
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\\n");
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf("\\n")) >= 0) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    const { id, method } = message;
    if (method === "initialize") {
      send({ id, result: { protocolVersion: "2025-11-25", capabilities: { tools: { listChanged: true } }, serverInfo: { name: "noisy", version: "1.0.0" } } });
    } else if (method === "notifications/initialized") {
      tools = ["late", "count"];
      for (let i = 0; i < NOTICES; i++) send({ method: "notifications/tools/list_changed" });
    } else if (method === "tools/list") {
      lists++;
      const listed = tools.map((name) => ({ name, inputSchema: { type: "object" } }));
      setTimeout(() => send({ id, result: { tools: listed } }), 100);
    } else if (method === "tools/call") {
      send({ id, result: { content: [{ type: "text", text: String(lists) }] } });
    } else if (id !== undefined) {
      send({ id, error: { code: -32601, message: "Method not found" } });
    }
  }
});
`;

let hub: Hub;
const events: HubEvent[] = [];

beforeAll(async () => {
  const script = join(dir, "noisy-server.mjs");
  writeFileSync(script, SERVER);
  hub = await Hub.connect({ noisy: { command: process.execPath, args: [script] } }, { stderrLogFile: join(dir, "servers.log"), onEvent: (event) => events.push(event) });
}, 30_000);

afterAll(async () => {
  await hub.close();
  rmSync(dir, { recursive: true, force: true });
  await expectNoChildren();
});

describe("a server that says its tools changed while they are first listed", () => {
  it("is listed once more after the first listing, not once more per notice", async () => {
    expect(hub.servers()[0]?.status).toBe("connected");
    await waitUntil(() => events.some((e) => e.type === "tools-changed" && e.server === "noisy"), 10_000, "tools-changed");
    const result = await hub.callTool("count", {});
    expect((result.content[0] as { text: string }).text).toBe("2");
  });

  it("ends with the tools the server lists last", () => {
    expect(hub.tools().map((tool) => tool.name)).toEqual(["late", "count"]);
  });
});
