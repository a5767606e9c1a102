import { homedir } from "node:os";
import { join } from "node:path";

/** `~` and `~/…` as the shell reads them. */
export function expandHome(path: string): string {
  if (path === "~") return homedir();
  return path.startsWith("~/") ? join(homedir(), path.slice(2)) : path;
}
