import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { ApprovalPolicy, type ApprovalAnswer, type ToolApprovalRequest } from "../../src/agent/approval.js";
import type { ToolCallingMiddlewares } from "../../src/agent/tool-mode.js";
import type { HubTool } from "../../src/mcp/types.js";
import { FakeHost, FakeModel, calls, text, textResult } from "./fakes.js";

const identity: ToolCallingMiddlewares = { prompt: (m) => m, textFallback: (m) => m };

function tool(overrides: Partial<HubTool> = {}): HubTool {
  return { name: "write_file", server: "fs", originalName: "write_file", inputSchema: { type: "object" }, ...overrides };
}

describe("ApprovalPolicy", () => {
  it("asks about every tool by default", () => {
    expect(new ApprovalPolicy().verdict(tool()).allowed).toBe(false);
  });

  it("lets every tool run with mode all", () => {
    expect(new ApprovalPolicy({ mode: "all" }).verdict(tool())).toEqual({ allowed: true, because: "all" });
  });

  it("lets the tools of a trusted server run", () => {
    const policy = new ApprovalPolicy({ servers: { fs: { trust: true } } });
    expect(policy.verdict(tool())).toEqual({ allowed: true, because: "trusted-server" });
    expect(policy.verdict(tool({ server: "other" })).allowed).toBe(false);
  });

  it("lets tools listed in autoApprove or alwaysAllow run, by the server's name or the exposed one", () => {
    const policy = new ApprovalPolicy({ servers: { fs: { autoApprove: ["read_file"] }, gh: { alwaysAllow: ["gh__search"] } } });
    expect(policy.verdict(tool({ name: "read_file", originalName: "read_file" })).allowed).toBe(true);
    expect(policy.verdict(tool({ name: "gh__search", originalName: "search", server: "gh" })).allowed).toBe(true);
    expect(policy.verdict(tool()).allowed).toBe(false);
  });

  it("allows and denies by pattern over server__tool or the exposed name, a deny rule winning even over mode all", () => {
    const policy = new ApprovalPolicy({ rules: { allow: ["fs__read_*", "github__*"], deny: ["github__delete_*"] } });
    expect(policy.verdict(tool({ name: "read_text", originalName: "read_text" }))).toEqual({ allowed: true, because: "rule" });
    expect(policy.verdict(tool({ name: "search", originalName: "search", server: "github" }))).toEqual({ allowed: true, because: "rule" });
    expect(policy.verdict(tool({ name: "delete_repo", originalName: "delete_repo", server: "github" }))).toEqual({ allowed: false, denied: "github__delete_*" });
    expect(policy.verdict(tool()).allowed).toBe(false);
    // `*` is the only special character: a dot in a pattern is a dot.
    expect(new ApprovalPolicy({ rules: { allow: ["fs.read"] } }).verdict(tool({ name: "fsxread" })).allowed).toBe(false);
    expect(new ApprovalPolicy({ mode: "all", rules: { deny: ["fs__*"] } }).verdict(tool()).allowed).toBe(false);
  });

  it("allows every tool of a server for the session once the person says so, still under the deny rules", () => {
    const policy = new ApprovalPolicy({ rules: { deny: ["fs__delete"] } });
    policy.allowServerForSession("fs");
    expect(policy.verdict(tool({ name: "anything", originalName: "anything" }))).toEqual({ allowed: true, because: "server-session" });
    expect(policy.verdict(tool({ name: "delete", originalName: "delete" })).allowed).toBe(false);
    expect(policy.verdict(tool({ server: "other" })).allowed).toBe(false);
  });

  it("says why a tool is asked about", () => {
    const policy = new ApprovalPolicy();
    expect(policy.whyAsked(tool({ annotations: { destructiveHint: true } }))).toContain("may change or delete data");
    expect(policy.whyAsked(tool())).toContain("does not mark it read-only");
    expect(policy.whyAsked(tool())).toContain("no allow rule");
  });

  it("trusts readOnlyHint only in readonly mode", () => {
    const readOnly = tool({ name: "read_file", annotations: { readOnlyHint: true } });
    expect(new ApprovalPolicy().verdict(readOnly).allowed).toBe(false);
    expect(new ApprovalPolicy({ mode: "readonly" }).verdict(readOnly)).toEqual({ allowed: true, because: "read-only" });
    expect(new ApprovalPolicy({ mode: "readonly" }).verdict(tool()).allowed).toBe(false);
  });

  it("is not fooled by a server named like an Object property", () => {
    expect(new ApprovalPolicy({ servers: {} }).verdict(tool({ server: "constructor" })).allowed).toBe(false);
  });
});

describe("the agent under an approval policy", () => {
  function setup(asked?: (request: ToolApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>) {
    const host = new FakeHost({ write_file: { run: () => textResult("written") } });
    const requests: ToolApprovalRequest[] = [];
    const ask = asked
      ? async (request: ToolApprovalRequest) => {
          requests.push(request);
          return asked(request);
        }
      : undefined;
    const policy = new ApprovalPolicy();
    return { host, requests, policy, approval: { policy, ...(ask ? { ask } : {}) } };
  }

  it("refuses a tool the policy does not allow when nobody can be asked, and tells the model", async () => {
    const { host, approval } = setup();
    const model = new FakeModel([calls(["c1", "write_file", '{"path":"a"}']), text("I could not write it.")]);
    const turn = await new Agent({ model, tools: host, approval, toolCalling: identity }).send("write a");
    expect(host.called).toHaveLength(0);
    expect(turn.toolCalls[0]?.outcome).toBe("not-approved");
    const toolMessage = model.requests[1]?.messages.find((m) => m.role === "tool");
    expect(toolMessage?.content).toMatch(/needs the user's approval/);
  });

  it("refuses every tool when the agent was given no approval at all", async () => {
    const host = new FakeHost({ write_file: { run: () => textResult("written") } });
    const model = new FakeModel([calls(["c1", "write_file", "{}"]), text("no")]);
    const turn = await new Agent({ model, tools: host, toolCalling: identity }).send("write");
    expect(host.called).toHaveLength(0);
    expect(turn.toolCalls[0]?.outcome).toBe("not-approved");
  });

  it("asks with the tool and its parsed arguments, and runs the call once allowed", async () => {
    const { host, requests, approval } = setup(() => ({ decision: "allow-once" }));
    const model = new FakeModel([calls(["c1", "write_file", '{"path":"a"}']), text("done")]);
    const turn = await new Agent({ model, tools: host, approval, toolCalling: identity }).send("write a");
    expect(requests).toHaveLength(1);
    expect(requests[0]?.tool.name).toBe("write_file");
    expect(requests[0]?.arguments).toEqual({ path: "a" });
    expect(host.called).toHaveLength(1);
    expect(turn.toolCalls[0]?.outcome).toBe("ok");
  });

  it("asks again next time after allow-once, but not after allow-session", async () => {
    const once = setup(() => ({ decision: "allow-once" }));
    const model1 = new FakeModel([calls(["c1", "write_file", "{}"]), calls(["c2", "write_file", '{"x":1}']), text("done")]);
    await new Agent({ model: model1, tools: once.host, approval: once.approval, toolCalling: identity }).send("twice");
    expect(once.requests).toHaveLength(2);

    const session = setup(() => ({ decision: "allow-session" }));
    const model2 = new FakeModel([calls(["c1", "write_file", "{}"]), calls(["c2", "write_file", '{"x":1}']), text("done")]);
    await new Agent({ model: model2, tools: session.host, approval: session.approval, toolCalling: identity }).send("twice");
    expect(session.requests).toHaveLength(1);
    expect(session.host.called).toHaveLength(2);
  });

  it("sends the person's reason for a denial back to the model", async () => {
    const { host, approval } = setup(() => ({ decision: "deny", reason: "use the backup folder instead" }));
    const model = new FakeModel([calls(["c1", "write_file", "{}"]), text("ok")]);
    const turn = await new Agent({ model, tools: host, approval, toolCalling: identity }).send("write");
    expect(host.called).toHaveLength(0);
    expect(turn.toolCalls[0]?.outcome).toBe("denied");
    const toolMessage = model.requests[1]?.messages.find((m) => m.role === "tool");
    expect(toolMessage?.content).toMatch(/denied "write_file"\. The user said: use the backup folder instead/);
  });

  it("takes a failed dialog as a denial", async () => {
    const { host, approval } = setup(() => Promise.reject(new Error("dialog closed")));
    const model = new FakeModel([calls(["c1", "write_file", "{}"]), text("ok")]);
    const turn = await new Agent({ model, tools: host, approval, toolCalling: identity }).send("write");
    expect(host.called).toHaveLength(0);
    expect(turn.toolCalls[0]?.outcome).toBe("denied");
  });

  it("does not run a call that was allowed after the turn was cancelled", async () => {
    const controller = new AbortController();
    const { host, approval } = setup(() => {
      controller.abort();
      return { decision: "allow-once" };
    });
    const model = new FakeModel([calls(["c1", "write_file", "{}"])]);
    const turn = await new Agent({ model, tools: host, approval, toolCalling: identity }).send("write", { signal: controller.signal });
    expect(host.called).toHaveLength(0);
    expect(turn.status).toBe("aborted");
  });

  it("never asks about tools the policy allows", async () => {
    const host = new FakeHost({ write_file: { run: () => textResult("written") } });
    let asked = 0;
    const approval = {
      policy: new ApprovalPolicy({ servers: { fake: { trust: true } } }),
      ask: async (): Promise<ApprovalAnswer> => {
        asked += 1;
        return { decision: "deny" };
      },
    };
    const model = new FakeModel([calls(["c1", "write_file", "{}"]), text("done")]);
    await new Agent({ model, tools: host, approval, toolCalling: identity }).send("write");
    expect(asked).toBe(0);
    expect(host.called).toHaveLength(1);
  });
});

describe("two calls that need approval in one reply", () => {
  /** An ask that answers only when told to, and counts the dialogs open at once. */
  function dialogs(answers: ApprovalAnswer[]) {
    const shown: string[] = [];
    let open = 0;
    let mostOpen = 0;
    const waiting: Array<() => void> = [];
    const ask = (request: ToolApprovalRequest): Promise<ApprovalAnswer> => {
      shown.push(`${request.tool.server}:${request.callId}`);
      mostOpen = Math.max(mostOpen, ++open);
      const answer = answers.shift() ?? { decision: "deny" };
      return new Promise((resolve) =>
        waiting.push(() => {
          open--;
          resolve(answer);
        }),
      );
    };
    const answerNext = async (): Promise<void> => {
      for (let i = 0; i < 100 && waiting.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 1));
      waiting.shift()?.();
    };
    return { ask, shown, answerNext, mostOpen: () => mostOpen };
  }

  it("asks one at a time, in call order, the second after the first is answered", async () => {
    const host = new FakeHost({ write_file: { run: () => textResult("written") }, delete_file: { run: () => textResult("deleted") } });
    const d = dialogs([{ decision: "allow-once" }, { decision: "deny" }]);
    const model = new FakeModel([calls(["c1", "write_file", "{}"], ["c2", "delete_file", "{}"]), text("done")]);
    const turn = new Agent({ model, tools: host, approval: { policy: new ApprovalPolicy(), ask: d.ask }, toolCalling: identity }).send("go");
    await d.answerNext();
    expect(d.shown).toEqual(["fake:c1"]);
    await d.answerNext();
    const result = await turn;
    expect(d.shown).toEqual(["fake:c1", "fake:c2"]);
    expect(d.mostOpen()).toBe(1);
    expect(result.toolCalls.map((call) => call.outcome)).toEqual(["ok", "denied"]);
  });

  it("lets 'allow for this session' on the first cover an identical second call", async () => {
    const host = new FakeHost({ write_file: { run: () => textResult("written") } });
    const d = dialogs([{ decision: "allow-session" }]);
    const model = new FakeModel([calls(["c1", "write_file", '{"n": 1}'], ["c2", "write_file", '{"n": 2}']), text("done")]);
    const turn = new Agent({ model, tools: host, approval: { policy: new ApprovalPolicy(), ask: d.ask }, toolCalling: identity }).send("go");
    await d.answerNext();
    const result = await turn;
    expect(d.shown).toEqual(["fake:c1"]);
    expect(result.toolCalls.map((call) => call.outcome)).toEqual(["ok", "ok"]);
    expect(host.called).toHaveLength(2);
  });

  it("still asks about the second when it is another server's tool of the same name and definition", async () => {
    const run = (server: string) => async () => textResult(server);
    const sync = (server: string): HubTool => ({ name: `${server}__sync`, server, originalName: "sync", inputSchema: { type: "object", properties: {} } });
    const host = { tools: () => [sync("alpha"), sync("beta")], callTool: (name: string) => run(name.split("__")[0]!)() };
    const d = dialogs([{ decision: "allow-session" }, { decision: "deny" }]);
    const model = new FakeModel([calls(["c1", "alpha__sync", "{}"], ["c2", "beta__sync", "{}"]), text("done")]);
    const turn = new Agent({ model, tools: host, approval: { policy: new ApprovalPolicy(), ask: d.ask }, toolCalling: identity }).send("go");
    await d.answerNext();
    await d.answerNext();
    const result = await turn;
    expect(d.shown).toEqual(["alpha:c1", "beta:c2"]);
    expect(d.mostOpen()).toBe(1);
    expect(result.toolCalls.map((call) => call.outcome)).toEqual(["ok", "denied"]);
  });
});
