import type { ApprovalMode } from "../agent/approval.js";
import type { SkillHost } from "../agent/skills.js";
import type { ResolvedConfig } from "../config/load.js";
import type { SessionSettings } from "../host/session-settings.js";
import type { TurnSettings } from "./turns.js";

/**
 * What every turn of the gateway runs with: the session settings of the host (src/host: the
 * tool offer, tool search, prompt format, hooks, as `run` and `chat` have them), the servers'
 * skills, and the approval policy (`gateway.approve`, "ask" by default: API clients cannot be
 * asked, so only trusted servers and listed tools run).
 */
export function turnSettings(config: ResolvedConfig, session: SessionSettings, options: { approve?: ApprovalMode; skills?: SkillHost } = {}): Omit<TurnSettings, "tools"> {
  return {
    ...session,
    ...(options.skills ? { skills: options.skills } : {}),
    approve: options.approve ?? config.gateway?.approve ?? "ask",
    servers: config.mcpServers,
    ...(config.permissions ? { rules: config.permissions } : {}),
  };
}
