import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { ToolCallingMiddlewares } from "../../src/agent/tool-mode.js";
import { ToolOffer } from "../../src/agent/tool-offer.js";
import { ToolCatalog } from "../../src/agent/tool-host.js";
import { FakeHost, FakeModel, allowAll, calls, text, textResult, type ToolHandler } from "./fakes.js";

const identity: ToolCallingMiddlewares = { prompt: (m) => m, textFallback: (m) => m };

/** A host with `count` tools: one that reads the weather, the rest filler about other things. */
function manyTools(count: number): FakeHost {
  const handlers: Record<string, { description: string; run: ToolHandler; schema?: Record<string, unknown> }> = {
    get_weather_forecast: {
      description: "Get the weather forecast for a city for the next days.",
      schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      run: (args) => textResult(`Sunny in ${String(args.city)}`),
    },
  };
  const topics = ["invoice", "kubernetes pod", "git branch", "calendar event", "slack channel", "database table", "pdf page", "docker image"];
  for (let i = 1; i < count; i++) {
    const topic = topics[i % topics.length] ?? "thing";
    handlers[`tool_${i}`] = { description: `Manage the ${topic} number ${i}.`, run: () => textResult("ok") };
  }
  return new FakeHost(handlers);
}

describe("tool search in the agent", () => {
  it("with 300 tools offers search_tools and loads what it found into the following requests of the turn", async () => {
    const host = manyTools(300);
    const model = new FakeModel([
      calls(["c1", "search_tools", '{"query": "weather forecast for Paris"}']),
      calls(["c2", "get_weather_forecast", '{"city": "Paris"}']),
      text("Sunny in Paris."),
      text("Anything else?"),
    ]);
    const agent = new Agent({ approval: allowAll, model, tools: host, toolCalling: identity });
    const turn = await agent.send("Will it rain in Paris tomorrow?");
    expect(turn.text).toBe("Sunny in Paris.");
    const names = (i: number): string[] => (model.requests[i]?.tools ?? []).map((t) => t.name);
    expect(names(0)).toEqual(["search_tools"]);
    expect(names(1)).toContain("get_weather_forecast");
    expect(names(1).length).toBeLessThanOrEqual(6);
    expect(host.called.map((c) => c.name)).toEqual(["get_weather_forecast"]);
    expect(turn.toolCalls.map((c) => [c.name, c.outcome])).toEqual([["search_tools", "ok"], ["get_weather_forecast", "ok"]]);
    expect(String(turn.toolCalls[0]?.content)).toContain("- get_weather_forecast: Get the weather forecast for a city for the next days.");
    // A new turn starts with the search tool alone again.
    await agent.send("thanks");
    expect(names(3)).toEqual(["search_tools"]);
  });

  it("in prompt mode describes search_tools, then the found tools, in the system prompt", async () => {
    const host = manyTools(300);
    const say = (t: string) => [{ type: "text-delta" as const, text: t }, { type: "finish" as const, reason: "stop" as const }];
    const model = new FakeModel([
      say('<tool_call>{"name": "search_tools", "arguments": {"query": "weather forecast"}}</tool_call>'),
      say('<tool_call>{"name": "get_weather_forecast", "arguments": {"city": "Oslo"}}</tool_call>'),
      say("Sunny in Oslo."),
    ]);
    const turn = await new Agent({ approval: allowAll, model, tools: host, toolMode: "prompt" }).send("Weather in Oslo?");
    expect(turn.text).toBe("Sunny in Oslo.");
    const system = (i: number): string => String(model.requests[i]?.messages[0]?.content);
    expect(system(0)).toContain("search_tools: Find tools for a task");
    expect(system(0)).not.toContain("get_weather_forecast");
    expect(system(1)).toContain("get_weather_forecast: Get the weather forecast for a city");
    expect(system(1)).not.toContain("tool_299");
    expect(model.requests.every((r) => r.tools === undefined)).toBe(true);
  });

  it("answers a search without a query as an error the model can fix, and runs other calls of the reply", async () => {
    const host = manyTools(50);
    const model = new FakeModel([calls(["c1", "search_tools", "{}"], ["c2", "get_weather_forecast", '{"city": "Oslo"}']), text("Done.")]);
    const turn = await new Agent({ approval: allowAll, model, tools: host, toolCalling: identity }).send("go");
    expect(turn.toolCalls.map((c) => [c.name, c.outcome])).toEqual([["search_tools", "invalid-arguments"], ["get_weather_forecast", "ok"]]);
    expect(String(turn.toolCalls[0]?.content)).toContain('needs one string argument, "query"');
  });

  it("keeps every tool in each request under the threshold, with search off, and with always-loaded tools", () => {
    const catalog = (n: number): ToolCatalog => {
      const c = new ToolCatalog(manyTools(n));
      c.refresh();
      return c;
    };
    expect(new ToolOffer().startTurn(catalog(40)).definitions()).toHaveLength(40);
    expect(new ToolOffer().startTurn(catalog(41)).definitions().map((t) => t.name)).toEqual(["search_tools"]);
    expect(new ToolOffer({ mode: "off" }).startTurn(catalog(300)).definitions()).toHaveLength(300);
    expect(new ToolOffer({ mode: "always" }).startTurn(catalog(3)).definitions().map((t) => t.name)).toEqual(["search_tools"]);
    expect(new ToolOffer({ mode: "auto", maxTokens: 100 }).startTurn(catalog(10)).definitions().map((t) => t.name)).toEqual(["search_tools"]);
    const always = new ToolOffer({ mode: "auto", alwaysLoaded: ["tool_7"] }).startTurn(catalog(100)).definitions();
    expect(always.map((t) => t.name)).toEqual(["tool_7", "search_tools"]);
  });
});
