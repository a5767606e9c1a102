import { randomUUID } from "node:crypto";
import { Hooks } from "../agent/hooks.js";
import type { ResolvedConfig } from "../config/load.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The variables of toolbridge's own environment a hook gets; nothing else of it (no keys, no tokens). */
const PASSED_VARIABLES = ["PATH", "HOME", "LANG", "TMPDIR"] as const;

/**
 * The environment a hook runs with: PATH, HOME, LANG and TMPDIR as toolbridge has them, and
 * the directory the session works in as TOOLBRIDGE_PROJECT_DIR (and CLAUDE_PROJECT_DIR, which
 * Claude Code's hook scripts read).
 */
export function hookEnvironment(env: Env, cwd: string): Record<string, string> {
  const passed = PASSED_VARIABLES.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name] as string]]));
  return { ...Object.fromEntries(passed), TOOLBRIDGE_PROJECT_DIR: cwd, CLAUDE_PROJECT_DIR: cwd };
}

/** The config's hooks for one session (every front end's), or undefined when none are configured. */
export function sessionHooks(config: ResolvedConfig, env: Env, cwd = process.cwd()): Hooks | undefined {
  if (!config.hooks || Object.values(config.hooks).every((entries) => entries === undefined || entries.length === 0)) return undefined;
  return new Hooks({ config: config.hooks, cwd, sessionId: randomUUID(), env: hookEnvironment(env, cwd) });
}
