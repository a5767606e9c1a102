import type { Message } from "../../llm/types.js";
import { cleanTerminalText } from "../render/terminal-text.js";

/** Names listed per kind of change; the rest are counted. */
const MAX_NAMED = 8;

/** What a resumed conversation was saved with: its servers (absent in transcripts saved before they were recorded) and its messages. */
export interface SavedWith {
  servers?: readonly string[];
  messages: readonly Message[];
}

/** The servers configured now and the tools they offer. */
export interface OfferedNow {
  servers: readonly string[];
  tools: readonly string[];
}

/**
 * One line saying how a resumed conversation's servers differ from those configured now
 * (missing, added) and which tools it called that nothing offers now, so that neither the
 * person nor a model calling them again is surprised; undefined when nothing differs.
 */
export function resumedChanges(saved: SavedWith, now: OfferedNow): string | undefined {
  const parts: string[] = [];
  if (saved.servers) {
    const before = saved.servers;
    const missing = before.filter((server) => !now.servers.includes(server));
    const added = now.servers.filter((server) => !before.includes(server));
    if (missing.length > 0) parts.push(`servers missing: ${names(missing)}`);
    if (added.length > 0) parts.push(`servers added: ${names(added)}`);
  }
  const offered = new Set(now.tools);
  const gone = [...new Set(saved.messages.flatMap((message) => (message.role === "assistant" ? (message.toolCalls ?? []).map((call) => call.name) : [])))].filter((name) => !offered.has(name));
  if (gone.length > 0) parts.push(`tools it called that are not offered now: ${names(gone)}`);
  return parts.length > 0 ? `since this conversation was saved: ${parts.join(" · ")}` : undefined;
}

function names(list: readonly string[]): string {
  const shown = list.slice(0, MAX_NAMED).map((name) => cleanTerminalText(name));
  return list.length > MAX_NAMED ? `${shown.join(", ")} and ${list.length - MAX_NAMED} more` : shown.join(", ");
}
