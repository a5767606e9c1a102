import { cleanTerminalText } from "./terminal-text.js";

/** Which config file is in use: `config: /path/toolbridge.json`, or that none was found and the bundled servers stand in. */
export function configSource(path: string | undefined): string {
  return path === undefined ? "config: none found; the bundled time and math servers" : `config: ${cleanTerminalText(path)}`;
}
