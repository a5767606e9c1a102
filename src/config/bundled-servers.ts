import { fileURLToPath } from "node:url";
import type { StdioServerConfig } from "./schema.js";

/**
 * The CLI entry point in the built package. This module sits two levels below the
 * package root both as `src/config/*.ts` and as `dist/config/*.js`, so the same
 * relative URL finds `dist/cli/main.js` from either.
 */
export const CLI_ENTRY = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

export const BUNDLED_SERVER_NAMES = ["time", "math"] as const;
export type BundledServerName = (typeof BUNDLED_SERVER_NAMES)[number];

/** A stdio entry that runs one of our own servers with the Node that runs us; their tools only read, so they are trusted. */
export function bundledServer(name: BundledServerName): StdioServerConfig {
  return { command: process.execPath, args: [CLI_ENTRY, "serve", name], trust: true };
}

/** What a config without `mcpServers` (or no config at all) connects to. */
export function defaultServers(): Record<BundledServerName, StdioServerConfig> {
  return { time: bundledServer("time"), math: bundledServer("math") };
}
