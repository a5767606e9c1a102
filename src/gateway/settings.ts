import type { ApprovalMode } from "../agent/approval.js";
import type { SkillHost } from "../agent/skills.js";
import type { ResolvedConfig } from "../config/load.js";
import type { LlmConfig } from "../config/schema.js";
import { sessionSettings } from "../host/session-settings.js";
import type { TurnSettings } from "./turns.js";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * What every turn of the gateway runs with, from the config: the session settings every front
 * end shares (src/host: the tool offer, tool search, prompt format), the servers' skills, and
 * the approval policy (`gateway.approve`, "ask" by default: API clients cannot be asked, so
 * only trusted servers and listed tools run).
 */
export function turnSettings(config: ResolvedConfig, llm: LlmConfig, env: Env, options: { approve?: ApprovalMode; skills?: SkillHost } = {}): Omit<TurnSettings, "tools"> {
  return {
    ...sessionSettings(config, llm, env),
    ...(options.skills ? { skills: options.skills } : {}),
    approve: options.approve ?? config.gateway?.approve ?? "ask",
    servers: config.mcpServers,
    ...(config.permissions ? { rules: config.permissions } : {}),
  };
}
