import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { ToolCallingMiddlewares } from "../../src/agent/tool-mode.js";
import { hubPerTest } from "../mcp/hub-per-test.js";
import { fixture } from "../mcp/processes.js";
import { allowAll, calls, FakeModel, text } from "./fakes.js";

/**
 * An SDK 1.x server's error can carry 1.x's "MCP error CODE: " twice (one it relays from its own
 * 1.x Client, or rewraps: test/fixtures/servers/v1-relayed-errors.mjs). The model reads it once.
 */

const identity: ToolCallingMiddlewares = { prompt: (m) => m, textFallback: (m) => m };
const hubs = hubPerTest("toolbridge-relayed-errors-");

describe("a tool error from an SDK 1.x server", () => {
  it("reaches the model with its prefix once", async () => {
    const hub = await hubs.connect({ v1: fixture("v1-relayed-errors.mjs") });
    const model = new FakeModel([calls(["c1", "relay", "{}"], ["c2", "rewrap", "{}"]), text("both failed")]);
    const agent = new Agent({ model, tools: hub, approval: allowAll, toolCalling: identity });
    const turn = await agent.send("try both");
    expect(turn.toolCalls.map((call) => [call.outcome, call.content])).toEqual([
      ["tool-error", "Error: the tool reported a failure.\nMCP error -32602: Resource mem://missing not found"],
      ["tool-error", "Error: the tool reported a failure.\nMCP error -32603: the database is locked"],
    ]);
  });
});
