import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import type { Hub } from "../../src/mcp/hub.js";
import { rejection } from "./hub-error.js";
import { hubPerTest } from "./hub-per-test.js";
import { fixture } from "./processes.js";

const hubs = hubPerTest("toolbridge-tool-call-");
const server = fixture("typed-results.mjs");


async function connect(): Promise<Hub> {
  const hub = await hubs.connect({ typed: server });
  expect(hub.servers()[0]).toMatchObject({ status: "connected", protocolVersion: "2025-11-25" });
  return hub;
}

/** Whether the v2 SDK's own Client, on the same server, refuses the call, and with what message: the hub's check must agree. */
async function sdkRefusal(name: string, args: Record<string, unknown> = {}): Promise<string | undefined> {
  const sdk = new Client({ name: "peer", version: "1" });
  await sdk.connect(new StdioClientTransport({ ...server, stderr: "ignore" }));
  try {
    await sdk.listTools();
    return await sdk.callTool({ name, arguments: args }).then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
  } finally {
    await sdk.close();
  }
}

describe("a tools/call result on 2025-11-25 is held to the wire shape and the tool's outputSchema, as the SDK's Client holds it", () => {
  it("takes structured content that matches the outputSchema, and a tool error without any", async () => {
    const hub = await connect();
    expect((await hub.callTool("typed", { count: 3 })).structuredContent).toEqual({ count: 3 });
    expect(await hub.callTool("failing", {})).toMatchObject({ isError: true, content: [{ type: "text", text: "could not count" }] });
    expect(await sdkRefusal("typed", { count: 3 })).toBeUndefined();
    expect(await sdkRefusal("failing")).toBeUndefined();
  });

  it("refuses structured content that does not match the outputSchema, as the SDK does", async () => {
    const hub = await connect();
    const error = await rejection(hub.callTool("typed", { count: 3, bad: true }));
    expect(error.message).toMatch(/tools\/call typed on server "typed" failed: .*Structured content does not match the tool's output schema: .*count must be number/);
    expect(await sdkRefusal("typed", { count: 3, bad: true })).toMatch(/Structured content does not match the tool's output schema: .*count must be number/);
  });

  it("refuses a result without the structured content its outputSchema promises, as the SDK does", async () => {
    const hub = await connect();
    expect((await rejection(hub.callTool("typed", { missing: true }))).message).toMatch(/Tool typed has an output schema but did not return structured content/);
    expect(await sdkRefusal("typed", { missing: true })).toMatch(/Tool typed has an output schema but did not return structured content/);
  });

  it("refuses structured content that is not an object, which the 2025-11-25 wire does not allow, as the SDK does", async () => {
    const hub = await connect();
    expect((await rejection(hub.callTool("array-content", {}))).message).toMatch(/Invalid result for tools\/call: .*structuredContent/s);
    expect(await sdkRefusal("array-content")).toMatch(/Invalid result for tools\/call/);
  });

  it("refuses a task with no content instead of taking it for an empty success, as the SDK does", async () => {
    const hub = await connect();
    expect((await rejection(hub.callTool("task-shaped", {}))).message).toMatch(/Invalid result for tools\/call: .*content is required when the body carries 'task'/s);
    expect(await sdkRefusal("task-shaped")).toMatch(/content is required when the body carries 'task'/);
  });

  it("refuses to call a tool whose outputSchema does not compile, before the call is sent, as the SDK does", async () => {
    const hub = await connect();
    expect((await rejection(hub.callTool("bad-schema", {}))).message).toMatch(/Tool 'bad-schema' has an invalid outputSchema: /);
    expect(await hub.callTool("calls", {})).toMatchObject({ content: [{ type: "text", text: "1" }] });
    expect(await sdkRefusal("bad-schema")).toMatch(/Tool 'bad-schema' has an invalid outputSchema: /);
  });
});
