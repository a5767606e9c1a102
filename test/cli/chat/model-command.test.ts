import picocolors from "picocolors";
import { describe, expect, it } from "vitest";
import { showModels, switchModel } from "../../../src/cli/chat/model-command.js";
import type { AgentSession } from "../../../src/cli/chat/session.js";
import type { SlashContext } from "../../../src/cli/chat/slash-context.js";
import { UsageMeter } from "../../../src/cli/chat/usage-meter.js";
import type { ListedModel } from "../../../src/llm/discovery.js";

/** A session whose server lists `listing` (or fails to), and the lines the command printed. */
function contextWith(listing: () => Promise<ListedModel[]>): { context: SlashContext; printed: string[]; model: () => string } {
  const agent = { model: { modelId: "a", provider: "vllm" }, toolMode: "native" };
  const session = {
    agent,
    endpoint: { url: "http://127.0.0.1:8000/v1" },
    listedModels: listing,
    usage: new UsageMeter(() => agent.model.modelId, listing),
    switchModel: async (name: string) => {
      agent.model = { ...agent.model, modelId: name };
    },
  };
  const printed: string[] = [];
  const context: SlashContext = { session: session as unknown as AgentSession, colors: picocolors.createColors(false), print: (text) => printed.push(text), columns: 80 };
  return { context, printed, model: () => agent.model.modelId };
}

describe("/model", () => {
  it("switches unchecked, and says so, when the server lists no models or cannot be asked", async () => {
    for (const [listing, why] of [
      [async () => [], "the server lists no models"],
      [() => Promise.reject(new Error("HTTP 404\x1b]2;pwned\x07 at /models")), "the server's models could not be listed: HTTP 404 at /models"],
    ] as const) {
      const { context, printed, model } = contextWith(listing);
      await switchModel(context, "b");
      expect(model()).toBe("b");
      expect(printed).toEqual([`now talking to b (unchecked: ${why})`]);
    }
  });

  it("refuses a name the server does not list, keeping the model in use", async () => {
    const { context, model } = contextWith(async () => [{ id: "a" }, { id: "org/big-model" }]);
    await expect(switchModel(context, "big-model")).rejects.toThrow(/does not serve "big-model"; did you mean "org\/big-model"\?/);
    expect(model()).toBe("a");
  });

  it("learns the context length of the model switched to from the same listing", async () => {
    const { context } = contextWith(async () => [{ id: "a", contextLength: 4096 }, { id: "b", contextLength: 8192 }]);
    await switchModel(context, "b");
    expect(context.session.usage.contextLength).toBe(8192);
  });

  it("shows at most 40 of a long list, the one in use marked", async () => {
    const many = Array.from({ length: 45 }, (_, i) => ({ id: `m${i}` }));
    const { context, printed } = contextWith(async () => [{ id: "a" }, ...many]);
    await showModels(context);
    const list = printed[1]!.split("\n");
    expect(list[0]).toBe("● a");
    expect(list).toHaveLength(41);
    expect(list.at(-1)).toBe("  and 6 more");
  });

  it("shows a model served under several names once, its aliases beside it, and counts models, not names", async () => {
    const root = (id: string, path: string) => ({ id, contextLength: 8192, listing: { id, root: path } });
    const many = Array.from({ length: 41 }, (_, i) => root(`m${i}`, `/models/m${i}`));
    const { context, printed } = contextWith(async () => [root("qwen", "/models/qwen3"), root("a", "/models/qwen3"), root("fast", "/models/qwen3"), ...many]);
    await showModels(context);
    const list = printed[1]!.split("\n");
    expect(list[0]).toBe("● a (also qwen, fast)  context 8.2k");
    expect(list[1]).toMatch(/^ {2}m0 +context 8.2k$/);
    // 42 models under 44 names: 40 shown, "and 2 more".
    expect(list).toHaveLength(41);
    expect(list.at(-1)).toBe("  and 2 more");
  });
});
