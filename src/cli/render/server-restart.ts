import type { ServerState } from "../../mcp/types.js";
import { cleanTerminalText } from "./terminal-text.js";

/**
 * The one line a live server's drop makes in a chat, once its restarts (a remote server's reconnections) have ended: back with its tools, or
 * left down and why. Nothing while it restarts, nor for a server that never connected (its start-up says that).
 */
export function restartLine(state: ServerState): { ok: boolean; text: string } | undefined {
  if (state.dropped === undefined || state.restarting) return undefined;
  const name = cleanTerminalText(state.name);
  const why = cleanTerminalText(state.dropped);
  if (state.status === "connected") return { ok: true, text: `server ${name} ${state.transport === "stdio" ? "restarted" : "reconnected"} (${why}), tools back` };
  if (state.status === "failed") return { ok: false, text: `server ${name} is down (${why}): ${cleanTerminalText(state.error ?? "unknown error")}` };
  return undefined;
}
