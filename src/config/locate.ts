import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { Environment } from "./expand-env.js";

export const PROJECT_CONFIG_NAME = "toolbridge.json";

/**
 * Where the user's own config file lives: `$XDG_CONFIG_HOME/toolbridge/config.json`,
 * `%APPDATA%\toolbridge\config.json` on Windows, else `~/.config/toolbridge/config.json`
 * (macOS included, as most command-line tools there do).
 */
export function userConfigFile(env: Environment, platform: NodeJS.Platform = process.platform): string {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, "toolbridge", "config.json");
  if (platform === "win32" && env.APPDATA) return join(env.APPDATA, "toolbridge", "config.json");
  const home = env.HOME || env.USERPROFILE || homedir();
  return join(home, ".config", "toolbridge", "config.json");
}

/** Where remote servers' OAuth tokens and client registrations are kept: `oauth/` beside the user's config file. */
export function userOAuthDir(env: Environment, platform: NodeJS.Platform = process.platform): string {
  return join(dirname(userConfigFile(env, platform)), "oauth");
}

export interface LocateOptions {
  /** `--config FILE`: used as given (relative to cwd); must exist. */
  file?: string;
  cwd: string;
  env: Environment;
  /** The directory holding the user's `config.json`, overriding the platform default. */
  configDir?: string;
  platform?: NodeJS.Platform;
}

/**
 * The config file to read, in order: `--config` (whether it exists or not, so that a
 * wrong path is reported), `./toolbridge.json`, the user's config file; undefined when
 * there is none.
 */
export function locateConfigFile(options: LocateOptions): string | undefined {
  if (options.file !== undefined) return resolve(options.cwd, options.file);
  const candidates = [
    join(options.cwd, PROJECT_CONFIG_NAME),
    options.configDir !== undefined ? join(options.configDir, "config.json") : userConfigFile(options.env, options.platform),
  ];
  return candidates.find((file) => existsSync(file));
}
