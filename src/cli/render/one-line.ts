import { cleanTerminalText } from "./terminal-text.js";

/** Server or model text as one clean line for the terminal: cleaned, then every run of whitespace one space. */
export function oneLine(text: string): string {
  return cleanTerminalText(text).replace(/\s+/g, " ").trim();
}
