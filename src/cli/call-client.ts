import type { ResolvedConfig } from "../config/load.js";
import { samplingModels, sessionApproval } from "../host/host-session.js";
import { createChatModel } from "../llm/create-model.js";
import type { ChatModel } from "../llm/types.js";
import type { ClientHandlers } from "../mcp/types.js";
import { applyFlags, approvalMode, type AgentFlags } from "./chat/session.js";
import { cliClientHandlers, namedModels } from "./client-handlers.js";
import { warn } from "./errors.js";
import type { PrompterSlot } from "./server-questions/prompter.js";
import { colorsFor } from "./render/colors.js";

export type CallFlags = Pick<AgentFlags, "approve" | "baseUrl" | "model" | "provider">;

/**
 * For a command without an agent (`call`): servers' sampling requests go to the config's
 * model (or the flags'), made on the first request, under `--approve`.
 */
export function callClientHandlers(flags: CallFlags, env: Readonly<Record<string, string | undefined>>, slot: PrompterSlot): (config: ResolvedConfig) => Required<ClientHandlers> {
  const mode = approvalMode(flags.approve);
  return (config) => {
    const llm = applyFlags(config.llm ?? {}, flags);
    let base: Promise<ChatModel> | undefined;
    return cliClientHandlers({
      config,
      llm,
      approval: sessionApproval(config, mode),
      knownModels: samplingModels(config, llm),
      model: namedModels(llm, env, () => (base ??= createChatModel(llm, env))),
      slot,
      colors: colorsFor(process.stderr, env),
      warn: (line) => warn(line, env),
    });
  };
}
