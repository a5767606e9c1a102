import { afterEach, expect, it } from "vitest";
import { ApprovalPolicy } from "../../src/agent/approval.js";
import { createSamplingHandler } from "../../src/agent/sampling.js";
import { createChatModel } from "../../src/llm/create-model.js";
import type { HubEvent } from "../../src/mcp/types.js";
import { startVllmServer, type VllmServer } from "../support/vllm-server.js";
import { hubPerTest } from "./hub-per-test.js";
import { fixture } from "./processes.js";

/**
 * A task that needs the client's model: the server puts it in input_required and sends its
 * sampling request with the task (relatedTask); the hub's sampling handler answers it and
 * the task's result comes back as the tool result. (Elicitation through input_required is
 * in hub-client-features.test.ts, with server-everything's simulate-research-query.)
 */

const hubs = hubPerTest("toolbridge-task-sampling-");
let model: VllmServer | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

it("answers the sampling request of an input_required task through the sampling handler", async () => {
  const vllm = (model = await startVllmServer({ replies: [{ text: "Forty-two." }] }));
  const asked: string[] = [];
  const h = await hubs.connect(
    { tasks: fixture("task-sampling-server.mjs") },
    {
      onSampling: createSamplingHandler({
        approval: { policy: new ApprovalPolicy({ mode: "ask" }), askSampling: async (request) => (asked.push(request.server), { decision: "allow-once" }) },
        model: (name) => createChatModel({ provider: "vllm", baseURL: vllm.url, model: name ?? "Qwen/Qwen3-8B" }, {}),
      }),
    },
  );
  const statuses: string[] = [];
  h.on((event: HubEvent) => (event.type === "task-status" ? statuses.push(event.task.status) : undefined));
  const result = await h.callTool("ask-model", { question: "What is the answer?" });
  expect(result.content).toEqual([{ type: "text", text: "the model said: Forty-two." }]);
  expect(asked).toEqual(["tasks"]);
  expect(vllm.chatRequests[0]?.body.messages).toEqual([{ role: "user", content: "What is the answer?" }]);
  expect(statuses).toContain("input_required");
}, 30_000);
