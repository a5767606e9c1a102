import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { stateDir } from "./state-dir.js";

/** The path of the state directory's file `name`; undefined when the directory cannot be made (no home, read-only). */
export function stateFilePath(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  try {
    return join(stateDir(env), name);
  } catch {
    return undefined;
  }
}

/**
 * A JSON file of the state directory as `schema` reads it; undefined when it is missing, bigger
 * than `maxBytes` (not ours to read), not JSON, or of another shape: it is then replaced on the next write.
 */
export function readStateFile<T>(file: string, schema: z.ZodType<T>, maxBytes: number): T | undefined {
  try {
    if (statSync(file).size > maxBytes) return undefined;
    const parsed = schema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes a JSON file of the state directory whole and renames it into place, so that a reader
 * never sees half a file; 0600 from the start. A failure is swallowed: what is remembered
 * there is learnt again next time, never a reason to fail a command.
 */
export function writeStateFile(file: string, value: unknown): void {
  try {
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, file);
  } catch {
    // See above.
  }
}

/** The `max` entries of a record of timestamped entries (ISO `at`) seen last, newest first: what a state file keeps. */
export function newestEntries<T extends { at: string }>(entries: Record<string, T>, max: number): Record<string, T> {
  return Object.fromEntries(
    Object.entries(entries)
      .sort(([, a], [, b]) => b.at.localeCompare(a.at))
      .slice(0, max),
  );
}
