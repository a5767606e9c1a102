import { join } from "node:path";
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_VLLM_MODEL } from "../support/vllm-server.js";
import { openaiClient, startHarness, type Harness } from "./harness.js";

/**
 * Responses tools beyond plain functions, with the real openai SDK as the client: namespaces
 * (Codex groups its MCP tools so) and an MCP tool that returns an image (server-everything's
 * get-tiny-image, a real MCP server).
 */

const EVERYTHING = join(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness({ servers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], trust: true } } });
});
afterAll(() => harness.close());

async function upstreamBodies(call: () => Promise<unknown>): Promise<Record<string, any>[]> {
  const before = harness.upstream.chatRequests.length;
  await call();
  return harness.upstream.chatRequests.slice(before).map((request) => request.body);
}

const CRM: OpenAI.Responses.NamespaceTool = {
  type: "namespace",
  name: "crm",
  description: "The customer database",
  tools: [
    { type: "function", name: "lookup", description: "Find a customer", parameters: { type: "object", properties: { email: { type: "string" } } } },
    { type: "function", name: "notes", parameters: { type: "object", properties: {} } },
  ],
};
// As Codex sends an MCP server's tools.
const CODEX_MCP: OpenAI.Responses.NamespaceTool = { type: "namespace", name: "mcp__docs__", description: "docs server", tools: [{ type: "function", name: "search", parameters: { type: "object", properties: {} } }] };

describe("namespace tools", () => {
  it("offers a namespace's functions under joined names, returns a call with name and namespace, and goes on from its output", async () => {
    harness.upstream.push({ toolCalls: [{ name: "crm__lookup", arguments: { email: "a@b.c" } }] }, { text: "Found Ada." });
    const sdk = openaiClient(harness);
    let first: OpenAI.Responses.Response | undefined;
    const [offer] = await upstreamBodies(async () => {
      first = await sdk.responses.create({ model: DEFAULT_VLLM_MODEL, input: "Who is a@b.c?", tools: [CRM, CODEX_MCP] });
    });
    const offered = offer?.tools.filter((tool: { function: { name: string } }) => !tool.function.name.startsWith("get-") && tool.function.name.includes("__"));
    expect(offered.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(["crm__lookup", "crm__notes", "mcp__docs__search"]);
    expect(offered[0].function.description).toBe("Find a customer");
    // A function with no description of its own gets its namespace's.
    expect(offered[1].function.description).toBe("The customer database");
    const call = first?.output.find((item) => item.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ name: "lookup", namespace: "crm", arguments: '{"email":"a@b.c"}' });

    const [next] = await upstreamBodies(async () => {
      const second = await sdk.responses.create({ model: DEFAULT_VLLM_MODEL, previous_response_id: first?.id, tools: [CRM], input: [{ type: "function_call_output", call_id: call.call_id, output: "Ada Lovelace" }] });
      expect(second.output_text).toBe("Found Ada.");
    });
    const assistant = next?.messages.find((message: { role: string }) => message.role === "assistant");
    expect(assistant.tool_calls[0].function.name).toBe("crm__lookup");
    expect(next?.messages.at(-1)).toMatchObject({ role: "tool", content: "Ada Lovelace" });
  });

  it("streams a namespaced call with its namespace on the item", async () => {
    harness.upstream.push({ toolCalls: [{ name: "mcp__docs__search", arguments: {} }] });
    const stream = openaiClient(harness).responses.stream({ model: DEFAULT_VLLM_MODEL, input: "search", tools: [CODEX_MCP] });
    let done: OpenAI.Responses.ResponseOutputItemDoneEvent | undefined;
    for await (const event of stream) if (event.type === "response.output_item.done" && event.item.type === "function_call") done = event;
    expect(done?.item).toMatchObject({ type: "function_call", name: "search", namespace: "mcp__docs__" });
  });

  it("answers 400 naming the function when a joined name would pass 64 characters", async () => {
    const long: OpenAI.Responses.NamespaceTool = { type: "namespace", name: "n".repeat(40), description: "", tools: [{ type: "function", name: "f".repeat(30) }] };
    await expect(openaiClient(harness).responses.create({ model: DEFAULT_VLLM_MODEL, input: "hi", tools: [long] })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("tools[0].tools[0]"),
    });
  });
});

describe("an MCP tool that returns an image", () => {
  const MCP_TOOL = { type: "mcp" as const, server_label: "everything", allowed_tools: ["get-tiny-image"], require_approval: "never" as const };

  it("shows the image as a line in mcp_call.output and whole in output_parts, and the model sees it on the next turn", async () => {
    harness.upstream.push({ toolCalls: [{ name: "get-tiny-image", arguments: {} }] }, { text: "A tiny image." }, { text: "Still the image." });
    const sdk = openaiClient(harness);
    let first: OpenAI.Responses.Response | undefined;
    const bodies = await upstreamBodies(async () => {
      first = await sdk.responses.create({ model: DEFAULT_VLLM_MODEL, input: "Show me the image", tools: [MCP_TOOL] });
    });
    const call = first?.output.find((item) => item.type === "mcp_call") as OpenAI.Responses.ResponseOutputItem.McpCall & { output_parts?: { type: string; image_url?: string }[] };
    expect(call.error).toBeNull();
    expect(call.output).toMatch(/\[image image\/png, \d+ bytes\]/);
    const image = call.output_parts?.find((part) => part.type === "input_image");
    expect(image?.image_url).toMatch(/^data:image\/png;base64,iVBOR/);
    // The model got the image itself in this turn…
    const toolMessage = (body: Record<string, any>) => JSON.stringify(body.messages.filter((message: { role: string }) => message.role !== "system" && message.role !== "assistant"));
    expect(toolMessage(bodies[1] as Record<string, any>)).toContain("data:image/png;base64,iVBOR");
    // …and again in the next, rebuilt from the stored response.
    const [next] = await upstreamBodies(() => sdk.responses.create({ model: DEFAULT_VLLM_MODEL, input: "And now?", previous_response_id: first?.id, tools: [MCP_TOOL] }));
    expect(toolMessage(next as Record<string, any>)).toContain("data:image/png;base64,iVBOR");
  });
});
