/**
 * The libraries toolbridge runs on (the MCP SDK among them) write warnings with `console.*`, and
 * some of them quote what a server sent: a tool's name, a header it declared, an OAuth error.
 * toolbridge itself never writes through `console`. So every console line is a library's: it
 * goes to stderr (stdout carries JSON-RPC for `serve` and JSON for `--json`), cleaned of terminal
 * controls and cut to one bounded line; while the chat's screen is up it becomes a notice there
 * instead of writing over the screen.
 */
import { format } from "node:util";
import { cleanTerminalText } from "./render/terminal-text.js";

/** One library line is a warning, not a document: longer than this it is cut. */
const MAX_LINE_CHARS = 1_000;

type Sink = (line: string) => void;

const toStderr: Sink = (line) => process.stderr.write(`${line}\n`);
let sink = toStderr;

/** Sends every `console` method through `libraryLine` to the current sink. */
export function routeLibraryConsole(): void {
  for (const method of ["log", "info", "warn", "error", "debug", "trace"] as const) {
    console[method] = (...args: unknown[]) => sink(libraryLine(args));
  }
}

/** What a library's console call becomes: its text cleaned for a terminal, on one line, bounded. */
export function libraryLine(args: unknown[]): string {
  const text = cleanTerminalText(format(...args)).replace(/\s*\n\s*/g, " ").trim();
  return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}… (${text.length - MAX_LINE_CHARS} more characters)` : text;
}

/** Sends library lines to `next` (the chat's notices) until the returned function is called. */
export function sendLibraryLinesTo(next: Sink): () => void {
  sink = next;
  return () => {
    sink = toStderr;
  };
}
