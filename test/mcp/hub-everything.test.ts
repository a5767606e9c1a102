import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import type { ServerConfig } from "../../src/config/schema.js";
import { Hub } from "../../src/mcp/hub.js";
import type { HubEvent, Progress } from "../../src/mcp/types.js";
import { EVERYTHING, expectNoChildren, startHttpEverything, waitUntil, type HttpEverything } from "./processes.js";

/**
 * The hub against the reference server of the MCP project, @modelcontextprotocol/server-everything,
 * over each transport: stdio, Streamable HTTP, legacy SSE, and SSE reached by falling back from HTTP.
 */

const dir = mkdtempSync(join(tmpdir(), "toolbridge-everything-"));
const stderrLogFile = join(dir, "servers.log");
const httpServers: HttpEverything[] = [];

afterAll(async () => {
  await Promise.all(httpServers.map((server) => server.stop()));
  rmSync(dir, { recursive: true, force: true });
  await expectNoChildren();
});

interface Setup {
  transport: string;
  expectedTransport: "stdio" | "streamable-http" | "sse";
  config: () => Promise<ServerConfig>;
}

const setups: Setup[] = [
  {
    transport: "stdio",
    expectedTransport: "stdio",
    config: async () => ({ command: process.execPath, args: [EVERYTHING, "stdio"] }),
  },
  {
    transport: "Streamable HTTP",
    expectedTransport: "streamable-http",
    config: async () => {
      const server = await startHttpEverything("streamableHttp");
      httpServers.push(server);
      return { url: server.url, headers: { "X-Test": "toolbridge" } };
    },
  },
  {
    transport: "legacy SSE (type: sse)",
    expectedTransport: "sse",
    config: async () => {
      const server = await startHttpEverything("sse");
      httpServers.push(server);
      return { type: "sse", url: server.url };
    },
  },
  {
    transport: "legacy SSE reached by falling back from Streamable HTTP",
    expectedTransport: "sse",
    config: async () => {
      const server = await startHttpEverything("sse");
      httpServers.push(server);
      return { url: server.url };
    },
  },
];

describe.each(setups)("the hub against server-everything over $transport", (setup) => {
  let hub: Hub;
  const events: HubEvent[] = [];

  beforeAll(async () => {
    hub = await Hub.connect({ everything: await setup.config() }, { stderrLogFile });
    hub.on((event) => events.push(event));
  }, 30_000);

  afterAll(async () => {
    await hub.close();
  });

  it("connects and reports the server", () => {
    const [state] = hub.servers();
    expect(state).toMatchObject({ name: "everything", status: "connected", transport: setup.expectedTransport });
    expect(state?.serverName).toMatch(/everything/i);
    expect(state?.toolCount).toBeGreaterThanOrEqual(10);
  });

  it("lists its tools under their own names", () => {
    const names = hub.tools().map((t) => t.name);
    for (const name of ["echo", "get-sum", "get-tiny-image", "trigger-long-running-operation", "get-structured-content"]) {
      expect(names).toContain(name);
    }
  });

  it("calls echo and get-sum", async () => {
    expect((await hub.callTool("echo", { message: "hi" })).content).toEqual([{ type: "text", text: "Echo: hi" }]);
    const sum = await hub.callTool("everything__get-sum", { a: 2, b: 3 });
    expect(JSON.stringify(sum.content)).toContain("5");
  });

  it("passes an image through untouched", async () => {
    const result = await hub.callTool("get-tiny-image", {});
    const image = result.content.find((c) => c.type === "image");
    expect(image).toMatchObject({ type: "image", mimeType: "image/png" });
    expect((image as { data: string }).data.length).toBeGreaterThan(100);
  });

  it("passes structuredContent through", async () => {
    const result = await hub.callTool("get-structured-content", { location: "New York" });
    expect(result.structuredContent).toBeDefined();
    expect(result.isError).toBeFalsy();
  });

  it("reports the long-running operation's progress and lets it outlive its timeout", async () => {
    const seen: Progress[] = [];
    // 4 steps of 0.4 s: 1.6 s in all against a 1 s timeout that each step restarts.
    const result = await hub.callTool("trigger-long-running-operation", { duration: 1.6, steps: 4 }, {
      timeoutMs: 1000,
      onProgress: (p) => seen.push(p),
    });
    expect(JSON.stringify(result.content)).toContain("Long running operation completed");
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen[0]).toMatchObject({ progress: 1, total: 4 });
    expect(events.some((e) => e.type === "progress" && e.tool === "trigger-long-running-operation")).toBe(true);
  });

  it("lists resources and templates, tagged with the server", async () => {
    const resources = await hub.resources();
    expect(resources.length).toBeGreaterThan(0);
    expect(resources.every((r) => r.server === "everything")).toBe(true);
    const templates = await hub.resourceTemplates();
    expect(templates.map((t) => t.uriTemplate)).toContain("demo://resource/dynamic/text/{resourceId}");
  });

  it("reads a listed resource and one matched by a template", async () => {
    const [first] = await hub.resources();
    const listed = await hub.readResource(first?.uri ?? "");
    expect(listed.contents[0]?.uri).toBe(first?.uri);
    const templated = await hub.readResource("demo://resource/dynamic/text/7");
    expect(templated.contents[0]).toMatchObject({ uri: "demo://resource/dynamic/text/7" });
  });

  it("lists prompts and gets one with arguments", async () => {
    const names = (await hub.prompts()).map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(["simple-prompt", "args-prompt"]));
    const prompt = await hub.getPrompt("args-prompt", { city: "Lisbon" });
    expect(JSON.stringify(prompt.messages)).toContain("Lisbon");
  });

  it(
    "delivers resources/updated for a subscribed resource as a resource-updated event",
    async () => {
      const uri = "demo://resource/dynamic/text/1";
      await hub.subscribe(uri);
      await hub.callTool("toggle-subscriber-updates", {});
      try {
        await waitUntil(() => events.some((e) => e.type === "resource-updated" && e.uri === uri), 12_000, "resource-updated");
        expect(events.find((e) => e.type === "resource-updated")).toEqual({ type: "resource-updated", server: "everything", uri });
      } finally {
        await hub.callTool("toggle-subscriber-updates", {});
        await hub.unsubscribe(uri);
      }
    },
    20_000,
  );
});

describe("environment isolation (server-everything get-env)", () => {
  const PARENT_ONLY = "TOOLBRIDGE_TEST_PARENT_ONLY";
  let hub: Hub;

  beforeAll(async () => {
    process.env[PARENT_ONLY] = "must-not-leak";
    const config = parseConfig(
      JSON.stringify({
        mcpServers: {
          everything: {
            command: "${NODE_BIN}",
            args: [EVERYTHING, "stdio"],
            env: { FROM_CONFIG: "present", EXPANDED: "${TB_GREETING:-unset}", DEFAULTED: "${TB_MISSING:-fallback}" },
          },
        },
      }),
      { env: { NODE_BIN: process.execPath, TB_GREETING: "expanded-value" } },
    );
    hub = await Hub.connect(config.mcpServers, { stderrLogFile });
  }, 30_000);

  afterAll(async () => {
    delete process.env[PARENT_ONLY];
    await hub.close();
  });

  it("gives the server the config's env (expanded) and the SDK's safe defaults, and nothing else of the parent's", async () => {
    const result = await hub.callTool("get-env", {});
    const env = JSON.parse((result.content[0] as { text: string }).text) as Record<string, string>;
    expect(env.FROM_CONFIG).toBe("present");
    expect(env.EXPANDED).toBe("expanded-value");
    expect(env.DEFAULTED).toBe("fallback");
    expect(env[PARENT_ONLY]).toBeUndefined();
    expect(env.PATH).toBe(process.env.PATH);
    const allowed = new Set(["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "FROM_CONFIG", "EXPANDED", "DEFAULTED"]);
    // Node itself may add a few variables of its own to process.env; none may come from our parent.
    const leaked = Object.keys(env).filter((key) => !allowed.has(key) && process.env[key] !== undefined);
    expect(leaked).toEqual([]);
  });
});
