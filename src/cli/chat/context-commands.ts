import { cleanTerminalText } from "../render/terminal-text.js";
import type { SlashContext } from "./slash-context.js";
import { shortTokens, usageReport } from "./usage-meter.js";

/** `/usage`: the session's totals and the conversation against the model's context. */
export async function showUsage({ session, print }: SlashContext): Promise<void> {
  await session.usage.learnContextLength();
  print(usageReport(session.usage));
}

/**
 * `/compact`: the conversation replaced by the model's summary of it, to continue from; says
 * how much smaller it got and shows the summary (it is all the model keeps). The conversation
 * goes on in a new saved session: the one compacted stays whole on disk, for --resume.
 */
export async function compactConversation({ session, colors, print, signal, newConversation }: SlashContext): Promise<void> {
  const { agent, usage } = session;
  if (agent.messages.length === 0) return print(colors.dim("nothing to compact: the conversation is empty"));
  const before = usage.contextUsed;
  print(colors.dim("asking the model for a summary of the conversation… (Esc cancels)"));
  let compaction;
  try {
    compaction = await agent.compact(signal ? { signal } : {});
  } catch (error) {
    if (signal?.aborted) return print(colors.dim("compacting cancelled; the conversation is kept as it was"));
    throw error;
  }
  const after = compaction.usage?.outputTokens;
  usage.conversationReplaced(after);
  newConversation?.();
  const tokens = after === undefined ? "" : before === undefined ? `, a summary of ${shortTokens(after)} tokens` : `, ${shortTokens(before)} → ${shortTokens(after)} tokens`;
  const cut = compaction.truncated ? "; the earliest part did not fit the model's context and is not in the summary" : "";
  print(colors.dim(cleanTerminalText(compaction.summary)));
  print(colors.dim(`compacted: ${compaction.messagesBefore} messages → ${compaction.messages.length}${tokens}${cut}`));
  if (newConversation) print(colors.dim(`continuing in a new saved session; the ${compaction.messagesBefore} messages before stay saved (--resume)`));
}
