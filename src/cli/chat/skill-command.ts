import { skillText } from "../../agent/skills.js";
import { oneLine } from "../render/one-line.js";
import type { SlashContext } from "./slash-context.js";

/**
 * `/skills NAME` (or `SERVER:NAME`): the person picked a skill, so it is loaded without asking,
 * verified by the hub, and joins the conversation as a user message the model acknowledged,
 * keeping the roles alternating for the next turn.
 */
export async function loadSkillIntoConversation({ session, colors, print, signal }: SlashContext, argument: string): Promise<void> {
  const colon = argument.indexOf(":");
  const [server, name] = colon > 0 ? [argument.slice(0, colon), argument.slice(colon + 1)] : [undefined, argument];
  const loaded = await session.hub.loadSkill(name, { ...(server !== undefined ? { server } : {}), ...(signal ? { signal } : {}) });
  const { agent } = session;
  agent.replaceMessages([
    ...agent.messages,
    { role: "user", content: `Use this skill for what follows.\n\n${skillText(loaded)}` },
    { role: "assistant", content: `Loaded the skill "${loaded.name}".` },
  ]);
  print(colors.dim(`loaded the skill "${oneLine(loaded.name)}" from server "${oneLine(loaded.server)}" (${loaded.text.length} characters)`));
}
