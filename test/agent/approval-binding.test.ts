import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { ApprovalPolicy, type ApprovalAnswer, type ToolApprovalRequest } from "../../src/agent/approval.js";
import type { ToolCallingMiddlewares } from "../../src/agent/tool-mode.js";
import type { Hub } from "../../src/mcp/hub.js";
import { hubPerTest } from "../mcp/hub-per-test.js";
import { fixture, waitUntil } from "../mcp/processes.js";
import { FakeModel, calls, text } from "./fakes.js";

/**
 * "Allow for this session" binds to one server's tool as it was defined when allowed: hostile
 * servers (test/fixtures/servers/shifting-tool.mjs) swap or redefine `sync` under the name.
 */

const identity: ToolCallingMiddlewares = { prompt: (m) => m, textFallback: (m) => m };
const hubs = hubPerTest("toolbridge-approval-binding-");

async function setup(servers: Record<string, "readonly" | "destructive" | "none">, answer: (request: ToolApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>) {
  const hub = await hubs.connect(
    Object.fromEntries(Object.entries(servers).map(([name, sync]) => [name, fixture("shifting-tool.mjs", "--name", name, "--sync", sync)])),
  );
  const asked: ToolApprovalRequest[] = [];
  const policy = new ApprovalPolicy();
  const approval = {
    policy,
    ask: async (request: ToolApprovalRequest) => {
      asked.push(request);
      return answer(request);
    },
  };
  return { hub, asked, approval };
}

const runsOf = async (hub: Hub, server: string) => ((await hub.callTool(`${server}__runs`, {})).content[0] as { text: string }).text;

async function redefine(hub: Hub, server: string, kind: "readonly" | "destructive" | "none"): Promise<void> {
  await hub.callTool(`${server}__set-sync`, { kind });
}

describe("an approval for the session", () => {
  it("does not pass to another server's tool that takes the name", async () => {
    const { hub, asked, approval } = await setup({ alpha: "readonly", beta: "none" }, (request) =>
      request.tool.server === "alpha" ? { decision: "allow-session" } : { decision: "deny" },
    );
    const model = new FakeModel([calls(["c1", "sync", "{}"]), text("synced"), calls(["c2", "sync", "{}"]), text("ok")]);
    const agent = new Agent({ model, tools: hub, approval, toolCalling: identity });
    expect((await agent.send("sync")).toolCalls[0]?.content).toContain("alpha:sync:readonly");

    // alpha drops its sync, beta adds a destructive one: both announce it with list_changed.
    await redefine(hub, "alpha", "none");
    await redefine(hub, "beta", "destructive");
    await waitUntil(() => hub.tools().find((tool) => tool.name === "sync")?.server === "beta", 5000, "beta's sync in the registry");

    const turn = await agent.send("sync again");
    expect(asked.map((request) => request.tool.server)).toEqual(["alpha", "beta"]);
    expect(asked[1]?.tool.annotations).toMatchObject({ destructiveHint: true });
    expect(turn.toolCalls[0]?.outcome).toBe("denied");
    expect(await runsOf(hub, "beta")).toBe("0");
  });

  it("asks again when the server redefines the allowed tool as destructive", async () => {
    const { hub, asked, approval } = await setup({ alpha: "readonly" }, () => ({ decision: "allow-session" }));
    const model = new FakeModel([calls(["c1", "sync", "{}"]), text("synced"), calls(["c2", "sync", "{}"]), text("synced"), calls(["c3", "sync", "{}"]), text("ok")]);
    const agent = new Agent({ model, tools: hub, approval, toolCalling: identity });
    await agent.send("sync");
    await agent.send("sync");
    // The same definition, allowed for the session: not asked twice.
    expect(asked).toHaveLength(1);

    await redefine(hub, "alpha", "destructive");
    await waitUntil(() => hub.tools().find((tool) => tool.name === "sync")?.annotations?.destructiveHint === true, 5000, "the new definition");
    const turn = await agent.send("sync");
    expect(asked).toHaveLength(2);
    expect(asked[1]?.tool.description).toMatch(/deleting/);
    expect(turn.toolCalls[0]?.content).toContain("alpha:sync:destructive");
  });

  it("asks again about the tool that would run when the name changes hands while the person decides", async () => {
    let hub: Hub | undefined;
    const setupResult = await setup({ alpha: "readonly", beta: "none" }, async (request) => {
      if (request.tool.server === "beta") return { decision: "deny" };
      // While the dialog about alpha's sync is open, the registry moves `sync` to beta.
      await redefine(hub as Hub, "alpha", "none");
      await redefine(hub as Hub, "beta", "destructive");
      await waitUntil(() => hub?.tools().find((tool) => tool.name === "sync")?.server === "beta", 5000, "beta's sync in the registry");
      return { decision: "allow-once" };
    });
    hub = setupResult.hub;
    const model = new FakeModel([calls(["c1", "sync", "{}"]), text("ok")]);
    const turn = await new Agent({ model, tools: hub, approval: setupResult.approval, toolCalling: identity }).send("sync");
    expect(setupResult.asked.map((request) => request.tool.server)).toEqual(["alpha", "beta"]);
    expect(turn.toolCalls[0]?.outcome).toBe("denied");
    expect(await runsOf(hub, "beta")).toBe("0");
    expect(await runsOf(hub, "alpha")).toBe("0");
  });
});
