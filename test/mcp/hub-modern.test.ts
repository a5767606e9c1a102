import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { CreateMessageRequestParams, ElicitRequestFormParams } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import type { CallToolResult } from "../../src/mcp/types.js";
import { hubPerTest } from "./hub-per-test.js";
import { EVERYTHING, fixture, httpFixture, waitUntil } from "./processes.js";

/**
 * Both protocol eras at once: a server that speaks only 2026-07-28 (test/fixtures/servers/modern-only.mjs,
 * on the v2 SDK) gets server/discover and the new protocol; 2025 servers in the same hub keep initialize,
 * including those that exit on, or never answer, a request before initialize.
 */

const { dir, stderrLogFile, connect } = hubPerTest("toolbridge-modern-");
const modern = fixture("modern-only.mjs");

function text(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

describe("a server that speaks only 2026-07-28", () => {
  it("is reached with server/discover, listed and called beside a 2025 server", async () => {
    const hub = await connect({ modern, everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } });
    const states = Object.fromEntries(hub.servers().map((state) => [state.name, state]));
    expect(states.modern).toMatchObject({ status: "connected", protocolVersion: "2026-07-28", serverName: "modern-only" });
    expect(states.everything).toMatchObject({ status: "connected", protocolVersion: "2025-11-25" });
    expect(hub.tools().filter((tool) => tool.server === "modern").map((tool) => tool.name).sort()).toEqual(["add-tool", "interview", "modern__echo", "schema-2020", "touch", "whoami"]);
    expect(text(await hub.callTool("modern__echo", { text: "hi" }))).toBe("hi");
    expect(text(await hub.callTool("everything__echo", { message: "hi" }))).toContain("hi");
  }, 30_000);

  it("names the protocol version and the client in each request's _meta", async () => {
    const hub = await connect({ modern }, { clientInfo: { name: "toolbridge-test", version: "9.9.9" } });
    expect(JSON.parse(text(await hub.callTool("whoami", {})))).toEqual({
      protocolVersion: "2026-07-28",
      clientInfo: { name: "toolbridge-test", version: "9.9.9" },
    });
  }, 20_000);

  it("answers input_required rounds through the hub's elicitation, sampling and roots, returning the request state untouched", async () => {
    const asked: string[] = [];
    const root = join(dir, "project");
    const hub = await connect(
      { modern },
      {
        roots: [root],
        onElicitation: async (params) => {
          asked.push(`elicit: ${(params as ElicitRequestFormParams).message}`);
          return { action: "accept", content: { name: "Ada" } };
        },
        onSampling: async (params: CreateMessageRequestParams) => {
          const last = params.messages.at(-1)?.content;
          asked.push(`sample: ${last && "text" in last ? last.text : "?"}`);
          return { role: "assistant", model: "test", content: { type: "text", text: "roses" } };
        },
      },
    );
    // The server checks each round's requestState came back byte for byte, or fails the call.
    const result = await hub.callTool("interview", {});
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe(`name=Ada poem=roses roots=${pathToFileURL(root).href}`);
    expect(asked).toEqual(["elicit: Your name?", "sample: A poem for Ada"]);
  }, 20_000);

  it("keeps a 2020-12 input schema as the server sent it, $defs and $ref included", async () => {
    const hub = await connect({ modern });
    const tool = hub.tools().find((entry) => entry.name === "schema-2020");
    expect(tool?.inputSchema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $defs: { point: { type: "object", required: ["x", "y"] } },
      properties: { at: { $ref: "#/$defs/point" } },
    });
    expect(JSON.parse(text(await hub.callTool("schema-2020", { at: { x: 1, y: 2 } })))).toEqual({ at: { x: 1, y: 2 } });
  }, 20_000);

  it("reads its resource, and says which resource was not found", async () => {
    const hub = await connect({ modern });
    const read = await hub.readResource("modern://greeting");
    expect(read.contents).toEqual([{ uri: "modern://greeting", mimeType: "text/plain", text: "hello from 2026" }]);
    await expect(hub.readResource("modern://missing", "modern")).rejects.toThrow(/modern:\/\/missing.*not found|not found.*modern:\/\/missing/i);
  }, 20_000);

  it("speaks 2026-07-28 over stateless Streamable HTTP too", async () => {
    const server = await httpFixture("modern-only.mjs", dir);
    try {
      const hub = await connect({ remote: { url: server.url } }, {
        onElicitation: async () => ({ action: "accept", content: { name: "Bo" } }),
        onSampling: async () => ({ role: "assistant", model: "test", content: { type: "text", text: "tulips" } }),
        roots: [dir],
      });
      expect(hub.servers()[0]).toMatchObject({ status: "connected", transport: "streamable-http", protocolVersion: "2026-07-28" });
      expect(text(await hub.callTool("interview", {}))).toBe(`name=Bo poem=tulips roots=${pathToFileURL(dir).href}`);
    } finally {
      await server.stop();
    }
  }, 30_000);

  it("hears of a tool added at run time through the subscriptions/listen stream", async () => {
    const hub = await connect({ modern });
    expect(text(await hub.callTool("add-tool", { name: "fresh" }))).toBe("added fresh");
    await waitUntil(() => hub.tools().some((tool) => tool.name === "fresh"), 10_000, "the new tool to be listed");
    expect(text(await hub.callTool("fresh", {}))).toBe("fresh");
  }, 20_000);
});

describe("resource subscriptions on both eras", () => {
  // touch sends its update before its result, on the same ordered stream: when the call returns, an update
  // the hub listens for has arrived, and one it does not listen for never will.
  it("subscribes to a 2026-07-28 server's resource through subscriptions/listen, and unsubscribes", async () => {
    const hub = await connect({ modern });
    const updates: string[] = [];
    hub.on((event) => {
      if (event.type === "resource-updated") updates.push(`${event.server} ${event.uri}`);
    });
    await hub.subscribe("modern://greeting");
    expect(text(await hub.callTool("touch", { uri: "modern://greeting" }))).toBe("touched modern://greeting");
    expect(text(await hub.callTool("touch", { uri: "modern://other" }))).toBe("touched modern://other");
    expect(updates).toEqual(["modern modern://greeting"]);
    await hub.unsubscribe("modern://greeting");
    await hub.callTool("touch", { uri: "modern://greeting" });
    expect(updates).toEqual(["modern modern://greeting"]);
    // Still listening for list changes after the stream was opened again.
    await hub.callTool("add-tool", { name: "later" });
    await waitUntil(() => hub.tools().some((tool) => tool.name === "later"), 10_000, "the new tool to be listed");
  }, 20_000);
});

describe("a server's protocol pinned in the config", () => {
  it("pinned to 2026-07-28, a 2026 server connects and a 2025-only server fails with one line", async () => {
    const hub = await connect({ modern: { ...modern, protocol: "2026-07-28" }, old: { command: process.execPath, args: [EVERYTHING, "stdio"], protocol: "2026-07-28" } });
    const states = Object.fromEntries(hub.servers().map((state) => [state.name, state]));
    expect(states.modern).toMatchObject({ status: "connected", protocolVersion: "2026-07-28" });
    expect(states.old).toMatchObject({ status: "failed" });
    expect(states.old?.error).toMatch(/2026-07-28/);
    expect(states.old?.error).not.toContain("\n");
  }, 30_000);

  it("pinned to 2025-11-25, a server is initialized without the server/discover probe", async () => {
    const starts = join(dir, "pinned-starts");
    const hub = await connect({
      strict: { ...fixture("legacy-strict.mjs", "--on-probe", "exit", "--starts", starts), protocol: "2025-11-25" },
      modern: { ...modern, protocol: "2025-11-25" },
    });
    const states = Object.fromEntries(hub.servers().map((state) => [state.name, state]));
    expect(states.strict).toMatchObject({ status: "connected", protocolVersion: "2025-11-25" });
    // One start: the probe that would have ended it was never sent.
    expect(readFileSync(starts, "utf8").trim().split("\n")).toHaveLength(1);
    expect(states.modern).toMatchObject({ status: "failed" });
  }, 30_000);
});

describe("a 2026-07-28 server slow to start", () => {
  it("is started again speaking 2026-07-28 when it answered the probe too late and refused the 2025 initialize that followed", async () => {
    // The probe gets half of 12 s; the first start reads nothing for 6.5 s, then answers server/discover (late) and refuses
    // initialize. What is left of the 12 s is ample for the second start on a loaded machine (with 6 s and 3.5 s, it once was not).
    const hub = await connect({ slow: { ...fixture("modern-only.mjs", "--slow-first", "6500", join(dir, "slow-started")), startupTimeoutMs: 12_000 } });
    expect(hub.servers()[0]).toMatchObject({ status: "connected", protocolVersion: "2026-07-28" });
    expect(text(await hub.callTool("echo", { text: "hi" }))).toBe("hi");
    expect(readFileSync(stderrLogFile, "utf8")).toMatch(/\[slow\] answered the server\/discover probe \(2026-07-28\) too late and refused 2025-11-25: started again speaking 2026-07-28/);
  }, 30_000);
});

describe("2025 servers hostile to the server/discover probe", () => {
  it("starts again speaking 2025-11-25 a server that exits on the probe, and keeps to 2025 when it restarts", async () => {
    const starts = join(dir, "exit-starts");
    const hub = await connect({ strict: fixture("legacy-strict.mjs", "--on-probe", "exit", "--starts", starts) });
    expect(hub.servers()[0]).toMatchObject({ status: "connected", protocolVersion: "2025-11-25" });
    expect(text(await hub.callTool("echo", {}))).toBe("ok");
    expect(readFileSync(stderrLogFile, "utf8")).toMatch(/\[strict\] exited on the server\/discover probe \(2026-07-28\): started again speaking 2025-11-25/);
    expect((await hub.callTool("crash", {})).isError).toBe(true);
    // The restart initializes at once: one start for the probe, one after it, one after the crash.
    expect(text(await hub.callTool("echo", {}))).toBe("ok");
    expect(readFileSync(starts, "utf8").trim().split("\n")).toHaveLength(3);
  }, 30_000);

  it("falls back within the probe's bound for a server that never answers it, saying so once", async () => {
    const started = Date.now();
    const hub = await connect({ silent: { ...fixture("legacy-strict.mjs", "--on-probe", "ignore"), startupTimeoutMs: 4000 } });
    expect(hub.servers()[0]).toMatchObject({ status: "connected", protocolVersion: "2025-11-25" });
    expect(Date.now() - started).toBeLessThan(4000);
    const lines = readFileSync(stderrLogFile, "utf8").split("\n").filter((line) => line.includes("[silent]"));
    expect(lines.filter((line) => line.includes("did not answer the server/discover probe (2026-07-28) within 2000 ms: speaking 2025-11-25"))).toHaveLength(1);
    expect(text(await hub.callTool("echo", {}))).toBe("ok");
  }, 20_000);
});
