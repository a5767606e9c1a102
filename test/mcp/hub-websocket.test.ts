import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { readFileSync } from "node:fs";
import { z } from "zod";
import type { ServerState } from "../../src/mcp/types.js";
import { restartLine } from "../../src/cli/render/server-restart.js";
import { hubPerTest } from "./hub-per-test.js";

const hubs = hubPerTest("toolbridge-websocket-");

/** The server side of MCP over a WebSocket, as the Python SDK's mcp.server.websocket speaks it: one message per text frame. */
class ServerSocketTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  constructor(private readonly socket: WebSocket) {}
  async start(): Promise<void> {
    this.socket.on("message", (data) => this.onmessage?.(JSON.parse(data.toString()) as JSONRPCMessage));
    this.socket.on("close", () => this.onclose?.());
  }
  async send(message: JSONRPCMessage): Promise<void> {
    this.socket.send(JSON.stringify(message));
  }
  async close(): Promise<void> {
    this.socket.close();
  }
}

/** A WebSocket MCP server: subprotocol "mcp" only; tools echo, big (a reply of `bytes`), whoami (whether the handshake carried the token). */
async function webSocketServer(banner?: string): Promise<{ url: string; wss: WebSocketServer; connections: () => number }> {
  let connections = 0;
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1", handleProtocols: (protocols) => (protocols.has("mcp") ? "mcp" : false) });
  wss.on("connection", (socket, request) => {
    connections++;
    if (banner !== undefined) socket.send(banner);
    const server = new McpServer({ name: "ws-server", version: "1.0.0" });
    const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
    server.registerTool("echo", { inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } }, async ({ text: value }) => text(value));
    server.registerTool("big", { inputSchema: { bytes: z.number() } }, async ({ bytes }) => text("x".repeat(bytes)));
    server.registerTool("whoami", {}, async () => text(request.headers.authorization === "Bearer ws-secret-token" ? "the token's holder" : "nobody"));
    void server.connect(new ServerSocketTransport(socket));
  });
  await new Promise((resolve) => wss.once("listening", resolve));
  return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/mcp`, wss, connections: () => connections };
}

let wss: WebSocketServer | undefined;
afterEach(async () => {
  for (const client of wss?.clients ?? []) client.terminate();
  await new Promise((resolve) => (wss ? wss.close(resolve) : resolve(undefined)));
  wss = undefined;
});

function textOf(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

describe("a WebSocket server", () => {
  it("lists its tools and answers a call, with the config's headers on the handshake", async () => {
    const server = await webSocketServer();
    wss = server.wss;
    const hub = await hubs.connect({ ws: { url: server.url, headers: { Authorization: "Bearer ws-secret-token" } } });
    expect(hub.servers()[0]).toMatchObject({ status: "connected", transport: "websocket" });
    expect(hub.tools().map((tool) => tool.name)).toEqual(["echo", "big", "whoami"]);
    expect(textOf(await hub.callTool("echo", { text: "hi" }))).toBe("hi");
    expect(textOf(await hub.callTool("whoami", {}))).toBe("the token's holder");
  });

  it('is reached with "type": "websocket" as with a ws:// url alone', async () => {
    const server = await webSocketServer();
    wss = server.wss;
    const hub = await hubs.connect({ ws: { type: "websocket", url: server.url } });
    expect(textOf(await hub.callTool("echo", { text: "typed" }))).toBe("typed");
  });

  it("refuses a frame over maxMessageBytes with one line naming the limit, then reconnects", async () => {
    const server = await webSocketServer();
    wss = server.wss;
    const hub = await hubs.connect({ ws: { url: server.url, maxMessageBytes: 64 * 1024 } }, { restartBackoffMs: 10 });
    const error = await hub.callTool("big", { bytes: 100 * 1024 }).then(
      () => undefined,
      (thrown: Error) => thrown,
    );
    expect(error?.message).toBe('tools/call big on server "ws" failed: the reply of more than 65536 bytes exceeds the limit (maxMessageBytes 65536 bytes)');
    // The socket the frame came on was closed (1009); the next call goes over a new one.
    expect(textOf(await hub.callTool("echo", { text: "after" }))).toBe("after");
    expect(server.connections()).toBe(2);
    expect(hub.servers()[0]).toMatchObject({ status: "connected", restarts: 1, dropped: "a message over maxMessageBytes" });
  });

  it("reconnects when the server drops the connection, and says so in one line", async () => {
    const server = await webSocketServer();
    wss = server.wss;
    const hub = await hubs.connect({ ws: { url: server.url } }, { restartBackoffMs: 10 });
    const back = new Promise<ServerState>((resolve) =>
      hub.on((event) => (event.type === "server-status" && event.state.status === "connected" ? resolve(event.state) : undefined)),
    );
    for (const client of server.wss.clients) client.terminate();
    const state = await back;
    expect(state).toMatchObject({ restarts: 1, dropped: "the connection closed" });
    expect(restartLine(state)?.text).toBe("server ws reconnected (the connection closed), tools back");
    expect(textOf(await hub.callTool("echo", { text: "again" }))).toBe("again");
    expect(server.connections()).toBe(2);
  });

  it("logs a frame that is not JSON-RPC as a WebSocket frame's, and connects when the server then speaks MCP", async () => {
    const server = await webSocketServer("welcome to the socket");
    wss = server.wss;
    const hub = await hubs.connect({ ws: { url: server.url } });
    expect(textOf(await hub.callTool("echo", { text: "hi" }))).toBe("hi");
    expect(readFileSync(hubs.stderrLogFile, "utf8")).toMatch(/\[ws\] a WebSocket frame is not JSON-RPC: /);
  });

  it("fails with one line when the server does not agree to the mcp subprotocol", async () => {
    const other = new WebSocketServer({ port: 0, host: "127.0.0.1", handleProtocols: () => false });
    wss = other;
    await new Promise((resolve) => other.once("listening", resolve));
    const hub = await hubs.connect({ ws: { url: `ws://127.0.0.1:${(other.address() as AddressInfo).port}/` } });
    expect(hub.servers()[0]?.status).toBe("failed");
    expect(hub.servers()[0]?.error).toMatch(/^cannot connect to ws:\/\/127\.0\.0\.1:\d+\/: Server sent no subprotocol$/);
  });
});
