import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Where toolbridge keeps what it remembers between runs (the chat's input history and saved
 * conversations, the tool-mode cache, the tool owners, the gateway's store): `$XDG_STATE_HOME/toolbridge`, else `~/.local/state/toolbridge`, made
 * private to the user (0700) on first use.
 */
export function stateDir(env: Env): string {
  const base = env.XDG_STATE_HOME && env.XDG_STATE_HOME.startsWith("/") ? env.XDG_STATE_HOME : join(env.HOME || homedir(), ".local", "state");
  const dir = join(base, "toolbridge");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
