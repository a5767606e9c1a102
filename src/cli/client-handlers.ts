import type { Approval } from "../agent/approval.js";
import { createSamplingHandler } from "../agent/sampling.js";
import type { ResolvedConfig } from "../config/load.js";
import type { LlmConfig } from "../config/schema.js";
import { createChatModel } from "../llm/create-model.js";
import type { ChatModel } from "../llm/types.js";
import type { ClientHandlers } from "../mcp/types.js";
import type { Colors } from "./render/colors.js";
import { terminalElicitation } from "./server-questions/elicitation.js";
import type { PrompterSlot } from "./server-questions/prompter.js";
import { terminalSamplingApproval } from "./server-questions/sampling.js";

export interface ClientHandlerInputs {
  config: ResolvedConfig;
  /** The llm section with the command's flags applied. */
  llm: LlmConfig;
  /** The session's approval; its policy decides sampling, the terminal is asked when it says ask. */
  approval: Approval;
  /** The models sampling may name (see SessionHandlerInputs). */
  knownModels: readonly string[];
  /** The model called `name`, or the session's own. */
  model: (name: string | undefined) => Promise<ChatModel>;
  slot: PrompterSlot;
  colors: Colors;
  warn: (line: string) => void;
}

/**
 * What a CLI command answers when servers ask: sampling through the configured model under the
 * approval policy (asking on the terminal), elicitation on the terminal, or declined with one
 * line on stderr when there is no terminal.
 */
export function cliClientHandlers(inputs: ClientHandlerInputs): Required<ClientHandlers> {
  const { config, slot, colors } = inputs;
  const approval: Approval = { ...inputs.approval, askSampling: terminalSamplingApproval(slot, colors, inputs.warn) };
  return {
    ...terminalElicitation(slot, colors, inputs.warn),
    onSampling: createSamplingHandler({
      approval,
      model: inputs.model,
      servers: config.mcpServers,
      knownModels: inputs.knownModels,
      ...(inputs.llm.toolMode !== undefined ? { toolMode: inputs.llm.toolMode } : {}),
      ...(inputs.llm.maxTokens !== undefined ? { maxTokens: inputs.llm.maxTokens } : {}),
    }),
  };
}

/**
 * The models sampling may use: `base()` for the session's own (undefined name or its name),
 * others made from the llm section on first use and kept.
 */
export function namedModels(
  llm: LlmConfig,
  env: Readonly<Record<string, string | undefined>>,
  base: () => Promise<ChatModel>,
): (name: string | undefined) => Promise<ChatModel> {
  const made = new Map<string, Promise<ChatModel>>();
  return async (name) => {
    if (name === undefined || name === llm.model) return base();
    let model = made.get(name);
    if (!model) {
      model = createChatModel({ ...llm, model: name }, env);
      made.set(name, model);
      model.catch(() => made.delete(name));
    }
    return model;
  };
}
