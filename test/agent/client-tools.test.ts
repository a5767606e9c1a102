import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { allowAll, calls, FakeHost, FakeModel, text, textResult } from "./fakes.js";

/** Tools the caller runs (a gateway's client): offered with the host's, their calls handed back, the loop continued later. */

const weather = { name: "get_weather", description: "Weather in a city", parameters: { type: "object", properties: { city: { type: "string" } } } };

describe("client tools", () => {
  it("offers them with the host's tools, hiding a host tool of the same name", async () => {
    const host = new FakeHost({ "get-date": { run: () => textResult("today") }, get_weather: { run: () => textResult("host weather") } });
    const model = new FakeModel([text("ok")]);
    await new Agent({ model, tools: host, approval: allowAll, clientTools: [weather] }).send("hi");
    expect(model.requests[0]?.tools).toEqual([{ name: "get-date", parameters: { type: "object", properties: {} } }, weather]);
  });

  it("ends the turn with the client's calls, runs none of the reply's calls, and continues from the client's results", async () => {
    const host = new FakeHost({ "get-date": { run: () => textResult("today") } });
    const model = new FakeModel([calls(["c1", "get_weather", '{"city":"Taipei"}'], ["c2", "get-date", "{}"]), text("25°C today")]);
    const agent = new Agent({ model, tools: host, approval: allowAll, clientTools: [weather] });
    const first = await agent.send("weather?");
    expect(first.stopReason).toBe("client-tools");
    expect(first.clientToolCalls).toEqual([{ id: "c1", name: "get_weather", arguments: '{"city":"Taipei"}' }]);
    expect(host.called).toEqual([]);
    expect(agent.messages.at(-1)).toEqual({ role: "assistant", content: "", toolCalls: first.clientToolCalls });

    const resumed = new Agent({
      model,
      tools: host,
      approval: allowAll,
      clientTools: [weather],
      messages: [...agent.messages, { role: "tool", toolCallId: "c1", name: "get_weather", content: "25°C" }],
    });
    const second = await resumed.send(null);
    expect(second.text).toBe("25°C today");
    expect(second.messages.map((message) => message.role)).toEqual(["assistant"]);
    expect(model.requests[1]?.messages.at(-1)).toEqual({ role: "tool", toolCallId: "c1", name: "get_weather", content: "25°C" });
  });
});
