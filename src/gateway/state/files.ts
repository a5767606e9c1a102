import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { open, readdir, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { checkPrivateFile, NO_FOLLOW } from "../../config/private-files.js";
import { mebibytes } from "../../mcp/transport/json-lines.js";
import type { IndexEntry } from "./budget.js";
import type { StoredResponse } from "./state.js";

/**
 * The embedded store on disk: one file per stored response in a private directory, so a start
 * reads only each file's first line (its index entry) and a record's body is read when asked
 * for. A file is written whole under a temporary name and then renamed over the old one, so a
 * crash or a full disk leaves the old record or a temporary file, never a record cut short;
 * one cut anyway (copied, or its data lost by the file system) is found by its size.
 */

/** The first line of a record file: what the index holds, and the body's length in bytes. */
const HeaderSchema = z.object({ id: z.string(), owner: z.string(), expiresAt: z.number(), bytes: z.number().int().nonnegative() });
const MAX_HEADER_BYTES = 4096;
/** Ids are ours (`resp_…`); anything else a client names is never a file name. */
const FILE_ID = /^[A-Za-z0-9_-]{1,128}$/;
const RECORD = ".json";
const PARTIAL = ".tmp";

/** A record file that is not whole: the message names the file and what was wrong. */
export class BadRecordError extends Error {}

export class RecordDirectory {
  constructor(readonly dir: string) {}

  /** Whether `id` can name a record file at all. */
  static canHold(id: string): boolean {
    return FILE_ID.test(id);
  }

  private file(id: string): string {
    return join(this.dir, `${id}${RECORD}`);
  }

  async write(id: string, entry: IndexEntry, body: string): Promise<void> {
    const header = JSON.stringify({ id, owner: entry.owner, expiresAt: entry.expiresAt, bytes: entry.bytes });
    if (Buffer.byteLength(header) >= MAX_HEADER_BYTES) throw new BadRecordError(`the owner of ${id} is too long to be stored`);
    const partial = join(this.dir, `${id}.${randomBytes(6).toString("hex")}${PARTIAL}`);
    const handle = await open(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o600);
    try {
      try {
        await handle.writeFile(`${header}\n${body}`, "utf8");
      } finally {
        await handle.close();
      }
      // A symlink planted at the record's name is replaced, not followed.
      await rename(partial, this.file(id));
    } catch (error) {
      await unlink(partial).catch(() => undefined);
      throw error;
    }
  }

  /** The record, or undefined when its file is gone; BadRecordError when it is not whole. */
  async read(id: string, maxBodyBytes: number): Promise<StoredResponse | undefined> {
    const file = this.file(id);
    const handle = await open(file, constants.O_RDONLY | NO_FOLLOW).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (!handle) return undefined;
    let data: Buffer;
    try {
      const stat = await handle.stat();
      checkPrivateFile(stat, file);
      if (stat.size > MAX_HEADER_BYTES + maxBodyBytes) throw new BadRecordError(`${file} is ${mebibytes(stat.size)}, more than a stored response may be`);
      data = await handle.readFile();
    } finally {
      await handle.close();
    }
    const { header, body } = splitRecord(data, file, id);
    if (body.length !== header.bytes) throw new BadRecordError(`${file} is cut short (${body.length} of ${header.bytes} bytes)`);
    try {
      const record = JSON.parse(body.toString("utf8")) as StoredResponse;
      if (record.id !== id) throw new Error(`it holds ${String(record.id)}`);
      return record;
    } catch (error) {
      throw new BadRecordError(`${file} is corrupt: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async remove(id: string): Promise<void> {
    await unlink(this.file(id)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  }

  /**
   * The index of every whole record, reading only each file's header. A file cut short or
   * unreadable is removed, told to `skipped` in one line; temporary files a crash left go quietly.
   */
  async scan(skipped: (line: string) => void): Promise<Map<string, IndexEntry>> {
    const entries = new Map<string, IndexEntry>();
    for (const name of await readdir(this.dir)) {
      const file = join(this.dir, name);
      if (name.endsWith(PARTIAL)) {
        await unlink(file).catch(() => undefined);
        continue;
      }
      const id = name.slice(0, -RECORD.length);
      if (!name.endsWith(RECORD) || !FILE_ID.test(id)) continue;
      try {
        const { owner, expiresAt, bytes } = await readHeader(file, id);
        entries.set(id, { owner, expiresAt, bytes });
      } catch (error) {
        skipped(`${error instanceof Error ? error.message : String(error)}: skipped and removed; the other stored responses are kept`);
        await unlink(file).catch(() => undefined);
      }
    }
    return entries;
  }
}

async function readHeader(file: string, id: string): Promise<z.infer<typeof HeaderSchema>> {
  const handle = await open(file, constants.O_RDONLY | NO_FOLLOW);
  try {
    const stat = await handle.stat();
    // A record copied in, or left by a wider umask, is made private.
    if (checkPrivateFile(stat, file).narrow) await handle.chmod(0o600);
    const buffer = Buffer.alloc(Math.min(MAX_HEADER_BYTES, stat.size));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const newline = buffer.subarray(0, bytesRead).indexOf(10);
    const { header } = splitRecord(buffer.subarray(0, bytesRead), file, id);
    if (stat.size !== newline + 1 + header.bytes) throw new BadRecordError(`${file} is cut short (${stat.size - newline - 1} of ${header.bytes} bytes)`);
    return header;
  } finally {
    await handle.close();
  }
}

function splitRecord(data: Buffer, file: string, id: string): { header: z.infer<typeof HeaderSchema>; body: Buffer } {
  const newline = data.indexOf(10);
  if (newline === -1 || newline > MAX_HEADER_BYTES) throw new BadRecordError(`${file} is not a stored response (no header line)`);
  let header;
  try {
    header = HeaderSchema.parse(JSON.parse(data.subarray(0, newline).toString("utf8")));
  } catch {
    throw new BadRecordError(`${file} is not a stored response (its header line is corrupt)`);
  }
  if (header.id !== id) throw new BadRecordError(`${file} holds another response (${header.id})`);
  return { header, body: data.subarray(newline + 1) };
}
