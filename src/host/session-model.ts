import type { ProbedMode } from "../agent/tool-mode.js";
import type { LlmConfig } from "../config/schema.js";
import { createChatModel, type CreateChatModelOptions } from "../llm/create-model.js";
import type { ChatModel } from "../llm/types.js";
import { ToolModeCache } from "./tool-mode-cache.js";
import { probedModeFor } from "./tool-mode-choice.js";

type Env = Readonly<Record<string, string | undefined>>;

export interface SessionModel {
  model: ChatModel;
  /** In tool mode "auto": the mode the model's probe found best, to start in (see probedModeFor). */
  probedMode?: ProbedMode;
}

/**
 * A session's model and its tool mode, as every front end makes them: the server's refusal of
 * `strict` remembered in the tool-mode cache, and the cached probe followed (made first when
 * the tool mode is set to "auto"). `say` hears the lines a person should see (a probe under way).
 */
export async function openSessionModel(llm: LlmConfig, env: Env, options: Omit<CreateChatModelOptions, "strictMemory"> & { say: (line: string) => void }): Promise<SessionModel> {
  const { say, ...create } = options;
  const toolModes = ToolModeCache.open(env);
  const model = await createChatModel(llm, env, { ...create, ...(toolModes ? { strictMemory: toolModes } : {}) });
  const probedMode = await probedModeFor(model, llm, toolModes, say);
  return { model, ...(probedMode ? { probedMode } : {}) };
}
