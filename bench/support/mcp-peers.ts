/**
 * The clients the hub is set against in bench/hub.ts and bench/hub-connect.ts, each on the same kind of
 * server (server-everything over stdio): the raw SDK clients (v1, and v2 which the hub is built on), the
 * Vercel AI SDK's MCP client, and the hub.
 */
import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioClientTransportV2 } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fileURLToPath } from "node:url";
import type { ServerConfig } from "../../src/config/schema.js";
import { Hub } from "../../src/mcp/hub.js";

const EVERYTHING = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
export const SERVER = { command: process.execPath, args: [EVERYTHING, "stdio"] };

export interface Peer {
  name: string;
  /** Connects like another peer; measured for round trips only. */
  roundTripsOnly?: true;
  /** Connects `count` servers and returns one echo function per server and a closer. */
  connect(count: number): Promise<{ echo: (message: string) => Promise<unknown>; close: () => Promise<void> }>;
}

/** The raw SDK client of either major version: connect, list tools, call. */
interface RawClient {
  listTools(): Promise<unknown>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

async function connectSdkClients<C extends RawClient>(count: number, open: () => Promise<C>): Promise<{ client: C; close: () => Promise<void> }> {
  const clients = await Promise.all(
    Array.from({ length: count }, async () => {
      const client = await open();
      await client.listTools();
      return client;
    }),
  );
  return { client: clients[0] as C, close: async () => void (await Promise.all(clients.map((c) => c.close()))) };
}

async function openV1(): Promise<Client> {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ ...SERVER, stderr: "ignore" }));
  return client;
}

async function openV2(): Promise<ClientV2> {
  const client = new ClientV2({ name: "bench", version: "1.0.0" });
  await client.connect(new StdioClientTransportV2({ ...SERVER, stderr: "ignore" }));
  return client;
}

export const peers: Peer[] = [
  {
    name: "raw SDK v1 Client",
    async connect(count) {
      const { client, close } = await connectSdkClients(count, openV1);
      return { echo: async (message) => client.callTool({ name: "echo", arguments: { message } }), close };
    },
  },
  {
    name: "raw SDK v2 Client",
    async connect(count) {
      const { client, close } = await connectSdkClients(count, openV2);
      return { echo: async (message) => client.callTool({ name: "echo", arguments: { message } }), close };
    },
  },
  {
    // What the hub asks of every call: a progress token (progress events, timeout reset by progress).
    name: "raw SDK v2 + progress",
    roundTripsOnly: true,
    async connect(count) {
      const { client, close } = await connectSdkClients(count, openV2);
      const options = { timeout: 60_000, resetTimeoutOnProgress: true, onprogress: () => undefined };
      return { echo: async (message) => client.callTool({ name: "echo", arguments: { message } }, options), close };
    },
  },
  {
    // The same of v1, so that the hub can be set against both raw clients asked what it asks.
    name: "raw SDK v1 + progress",
    roundTripsOnly: true,
    async connect(count) {
      const { client, close } = await connectSdkClients(count, openV1);
      const options = { timeout: 60_000, resetTimeoutOnProgress: true, onprogress: () => undefined };
      return { echo: async (message) => client.callTool({ name: "echo", arguments: { message } }, undefined, options), close };
    },
  },
  {
    name: "toolbridge Hub",
    async connect(count) {
      const servers: Record<string, ServerConfig> = {};
      for (let i = 0; i < count; i++) servers[`s${i}`] = { ...SERVER };
      // No start-up timeout of its own, as the other clients have none: on a loaded machine five servers
      // took over the default 15 s, and the connect table was lost to that failure.
      const hub = await Hub.connect(servers, { stderrLogFile: "/dev/null", defaultStartupTimeoutMs: 600_000 });
      const failed = hub.servers().filter((s) => s.status !== "connected");
      if (failed.length) throw new Error(`hub: ${failed.map((s) => s.error).join("; ")}`);
      const tool = hub.tools().find((t) => t.server === "s0" && t.originalName === "echo")?.name ?? "echo";
      return { echo: async (message) => hub.callTool(tool, { message }), close: () => hub.close() };
    },
  },
  {
    name: "@ai-sdk/mcp",
    async connect(count) {
      const clients = await Promise.all(
        Array.from({ length: count }, async () => {
          const client = await createMCPClient({ transport: new Experimental_StdioMCPTransport({ ...SERVER, stderr: "ignore" }) });
          return { client, tools: await client.tools() };
        }),
      );
      const echoTool = clients[0]?.tools.echo;
      if (!echoTool?.execute) throw new Error("@ai-sdk/mcp: no echo tool");
      const execute = echoTool.execute;
      let id = 0;
      return {
        echo: async (message) => execute({ message }, { toolCallId: String(++id), messages: [] }),
        close: async () => void (await Promise.all(clients.map((c) => c.client.close()))),
      };
    },
  },
];
