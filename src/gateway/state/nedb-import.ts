import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { z } from "zod";
import { checkPrivateFile, NO_FOLLOW } from "../../config/private-files.js";
import { JsonLineSplitter } from "../../mcp/transport/json-lines.js";
import type { StoredResponse } from "./state.js";

/**
 * Reads once the single-file store of toolbridge before 0.2 (nedb: one JSON document a line,
 * appended; a later line for an id replaces it, `$$deleted` removes it), one line at a time,
 * so a file of gigabytes is never held at once. Each whole, unexpired record goes to `keep`.
 */

const RowSchema = z.object({ _id: z.string(), expiresAt: z.object({ $$date: z.number() }), data: z.string() });
const DeletedSchema = z.object({ _id: z.string(), $$deleted: z.literal(true) });

export interface ImportCount {
  kept: number;
  /** Lines that were not whole records (cut by a full disk, corrupt, or longer than a record may be), by line number. */
  skipped: number[];
}

export async function importNedbFile(
  file: string,
  maxLineBytes: number,
  now: number,
  store: { keep: (record: StoredResponse, expiresAt: number) => Promise<boolean>; forget: (id: string) => Promise<void> },
): Promise<ImportCount> {
  const handle = await open(file, constants.O_RDONLY | NO_FOLLOW);
  try {
    checkPrivateFile(await handle.stat(), file);
  } catch (error) {
    await handle.close();
    throw error;
  }
  // The stream closes the file when it ends or is destroyed.
  const stream = handle.createReadStream();
  const count: ImportCount = { kept: 0, skipped: [] };
  let lineNumber = 0;
  const lines: (string | undefined)[] = [];
  // An oversize line is skipped whole; its number is kept, not its text.
  const splitter = new JsonLineSplitter(maxLineBytes, (line) => lines.push(line), () => lines.push(undefined));
  const ids = new Set<string>();
  const take = async (line: string | undefined) => {
    lineNumber += 1;
    if (line === undefined) return void count.skipped.push(lineNumber);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return void count.skipped.push(lineNumber);
    }
    if (value !== null && typeof value === "object" && ("$$indexCreated" in value || "$$indexRemoved" in value)) return;
    const deleted = DeletedSchema.safeParse(value);
    if (deleted.success) {
      if (ids.delete(deleted.data._id)) await store.forget(deleted.data._id);
      return;
    }
    const row = RowSchema.safeParse(value);
    let record: StoredResponse | undefined;
    try {
      record = row.success ? (JSON.parse(row.data.data) as StoredResponse) : undefined;
    } catch {
      record = undefined;
    }
    if (!row.success || !record || record.id !== row.data._id || typeof record.owner !== "string") return void count.skipped.push(lineNumber);
    if (row.data.expiresAt.$$date <= now) return;
    if (await store.keep(record, row.data.expiresAt.$$date)) ids.add(record.id);
  };
  try {
    for await (const chunk of stream) {
      splitter.push(chunk as Buffer);
      for (const line of lines.splice(0)) await take(line);
    }
    // A last line without its newline (cut by a full disk) is read too, and found not whole.
    splitter.push(Buffer.from("\n"));
    for (const line of lines.splice(0)) await take(line);
  } finally {
    stream.destroy();
  }
  count.kept = ids.size;
  return count;
}
