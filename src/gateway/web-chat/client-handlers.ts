import type { Approval } from "../../agent/approval.js";
import { createSamplingHandler, type SamplingOptions } from "../../agent/sampling.js";
import type { ChatModel } from "../../llm/types.js";
import type { ClientHandlers } from "../../mcp/types.js";
import type { GatewayModels } from "../models.js";
import type { WebServerQuestions } from "./server-questions.js";

export interface WebClientHandlerOptions extends Omit<SamplingOptions, "approval" | "model"> {
  /** The host session's one policy (sessionApproval): `gateway.approve`, the servers' trust, the config's rules. */
  approval: Approval;
  /** The gateway's models, once it has them (the hub starts first): a server's `sampling.model`, else the default. */
  models: () => GatewayModels | undefined;
}

/**
 * What the gateway's hub answers when servers ask: elicitation in the web chat's page, and
 * sampling through the gateway's models under the host session's policy (the one the terminal's
 * sampling takes), asking the page when it says ask, with the same per-server budget and
 * `maxTokens` cap as the terminal. Nobody to ask (an API client's turn): declined, refused.
 */
export function webClientHandlers(questions: WebServerQuestions, options: WebClientHandlerOptions): ClientHandlers {
  const { approval, models, ...sampling } = options;
  const model = async (name: string | undefined): Promise<ChatModel> => {
    const known = models();
    if (!known) throw new Error("the gateway is still starting");
    if (name === undefined) return known.primary;
    const found = await known.get(name);
    if (!found) throw new Error(`sampling asks for the model "${name}", which this gateway does not serve`);
    return found;
  };
  return {
    onElicitation: questions.elicitForm,
    onUrlElicitation: questions.elicitUrl,
    onSampling: createSamplingHandler({ ...sampling, model, approval: { ...approval, askSampling: questions.approveSampling } }),
  };
}
