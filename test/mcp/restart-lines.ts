import type { Hub } from "../../src/mcp/hub.js";
import type { HubEvent, ServerState } from "../../src/mcp/types.js";
import { restartLine } from "../../src/cli/render/server-restart.js";

/** The text of a tool result's first block. */
export function textOf(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

/** The server-status events of `hub` from now on, and the chat lines they make (restartLine). */
export function watchRestarts(hub: Hub): { states: ServerState[]; lines: string[] } {
  const states: ServerState[] = [];
  const lines: string[] = [];
  hub.on((event: HubEvent) => {
    if (event.type !== "server-status") return;
    states.push(event.state);
    const line = restartLine(event.state);
    if (line) lines.push(line.text);
  });
  return { states, lines };
}
