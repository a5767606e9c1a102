import type { HubEvent, ServerState } from "../../mcp/types.js";
import { colorsFor } from "./colors.js";
import { displayWidth } from "./table.js";
import { cleanTerminalText } from "./terminal-text.js";

/**
 * One stderr line, on a terminal only, rewritten as each server's start-up moves on
 * (`servers: time ✓  math …  github ✗`), so a server that hangs is seen hanging rather
 * than as a blank screen. Cleared once no server is starting any more (failures are
 * warned about on their own lines after it); later reconnections are not shown here.
 * Give the returned listener to the hub as it starts (`onHubEvent`).
 */
export function startupStatus(stderr: NodeJS.WriteStream, env: Readonly<Record<string, string | undefined>>): StartupStatus {
  if (!stderr.isTTY) return Object.assign(() => {}, { end: () => {} });
  const c = colorsFor(stderr, env);
  const states = new Map<string, ServerState>();
  let over = false;
  const mark = (state: ServerState): string => {
    if (state.status === "connected") return c.green("✓");
    if (state.status === "failed") return c.red("✗");
    return c.dim("…");
  };
  const draw = (): void => {
    const parts = [...states.values()].map((state) => `${cleanTerminalText(state.name)} ${mark(state)}`);
    const line = `${c.dim("servers:")} ${parts.join("  ")}`;
    // Within the terminal's width, so the line never wraps and \r always returns to its start.
    stderr.write(`\r\x1b[2K${fits(parts, stderr.columns) ? line : `${c.dim("servers:")} ${countLine([...states.values()])}`}`);
  };
  const end = (): void => {
    if (over) return;
    over = true;
    if (states.size > 0) stderr.write("\r\x1b[2K");
  };
  const listener = (event: HubEvent): void => {
    if (over || event.type !== "server-status" || event.state.status === "disabled" || event.state.status === "closed") return;
    states.set(event.state.name, event.state);
    if ([...states.values()].some((state) => state.status === "connecting")) return draw();
    end();
  };
  return Object.assign(listener, { end });
}

/** The start-up line's listener; `end()` clears the line and ignores what follows (a command going on before every server is up). */
export type StartupStatus = ((event: HubEvent) => void) & { end(): void };

function fits(parts: string[], columns: number | undefined): boolean {
  const plain = `servers: ${parts.join("  ")}`.replace(/\x1b\[[0-9;]*m/g, "");
  return !columns || displayWidth(plain) < columns;
}

function countLine(states: ServerState[]): string {
  const up = states.filter((state) => state.status === "connected").length;
  const failed = states.filter((state) => state.status === "failed").length;
  return `${up}/${states.length} started${failed > 0 ? `, ${failed} failed` : ""}`;
}

/**
 * Said at once on a signal while servers start, over the start-up line: stopping them can take
 * their grace periods, and until then the person would see no sign the key was heard.
 */
export function sayStopping(env: Readonly<Record<string, string | undefined>>, stderr: NodeJS.WriteStream = process.stderr): void {
  stderr.write(`${stderr.isTTY ? "\r\x1b[2K" : ""}${colorsFor(stderr, env).dim("stopping…")}\n`);
}
