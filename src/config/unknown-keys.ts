import { isPlainObject } from "./expand-env.js";
import { ConfigSchema, RemoteServerSchema, StdioServerSchema } from "./schema.js";

/**
 * Keys a config file may hold that toolbridge does not know are usually other hosts' own
 * (a Claude Desktop or Gemini CLI file copied as it is) and stay quiet; a key that looks
 * like one of ours misspelt (`mcp_servers`, `excludedTools`) is warned about, with the key
 * it probably meant. A file with no server list at all is warned about too, since the
 * bundled servers then stand in for the ones it meant to give.
 */

/** The schema's own keys, plus those of the other hosts' shapes it reads (VS Code's `servers`, `inputs`). */
const TOP_LEVEL = [...Object.keys(ConfigSchema.shape), "servers", "inputs", "$schema"];
const SERVER_ENTRY = [...new Set([...Object.keys(StdioServerSchema.shape), ...Object.keys(RemoteServerSchema.shape)])];

/** One line per doubtful key: `mcp_servers: unknown key (did you mean "mcpServers"?)`. */
export function unknownKeyWarnings(data: unknown): string[] {
  if (!isPlainObject(data)) return [];
  const warnings: string[] = [];
  const unknownTop = Object.keys(data).filter((key) => !TOP_LEVEL.includes(key));
  for (const key of unknownTop) {
    const meant = didYouMean(key, TOP_LEVEL);
    if (meant) warnings.push(`${key}: unknown key (did you mean "${meant}"?)`);
  }
  if (data.mcpServers === undefined && data.servers === undefined) {
    const keys = unknownTop.length > 0 ? ` (its keys: ${unknownTop.join(", ")})` : "";
    warnings.push(`no "mcpServers" in this file${keys}; using the bundled time and math servers`);
  }
  const servers = isPlainObject(data.mcpServers) ? data.mcpServers : isPlainObject(data.servers) ? data.servers : {};
  for (const [name, entry] of Object.entries(servers)) {
    if (!isPlainObject(entry)) continue;
    for (const key of Object.keys(entry)) {
      if (SERVER_ENTRY.includes(key)) continue;
      const meant = didYouMean(key, SERVER_ENTRY);
      if (meant) warnings.push(`mcpServers.${name}.${key}: unknown key (did you mean "${meant}"?)`);
    }
  }
  return warnings;
}

/** The known key the given one is most likely a slip of: same letters but for case and separators, or at most two edits. */
export function didYouMean(key: string, known: readonly string[]): string | undefined {
  const squash = (text: string) => text.toLowerCase().replace(/[-_\s]/g, "");
  const same = known.find((candidate) => squash(candidate) === squash(key));
  if (same) return same;
  if (key.length < 4) return undefined;
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(squash(key), squash(candidate));
    if (distance <= 2 && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
