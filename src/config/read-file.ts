import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { ConfigError } from "./errors.js";

/** A config file is a few kilobytes; anything past this is not one (or is `/dev/zero`). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Reads a config file, refusing anything but a regular file of at most MAX_CONFIG_BYTES.
 * The file is opened non-blocking and checked on its descriptor before a byte is read, so
 * a FIFO never blocks, a device is never read, and a file swapped after the check is not
 * the one read.
 */
export function readConfigText(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new ConfigError(openFailure((error as NodeJS.ErrnoException).code, error), { file });
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new ConfigError("is a directory, not a config file", { file });
    if (!stat.isFile()) throw new ConfigError(`is a ${kindOf(stat)}, not a regular file`, { file });
    if (stat.size > MAX_CONFIG_BYTES) {
      throw new ConfigError(`is ${formatSize(stat.size)}, more than a config file may be (${formatSize(MAX_CONFIG_BYTES)})`, { file });
    }
    // Read up to one byte past the cap: a file that grew since fstat is caught too.
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > MAX_CONFIG_BYTES) throw new ConfigError(`is more than a config file may be (${formatSize(MAX_CONFIG_BYTES)})`, { file });
    return buffer.toString("utf8", 0, length);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(openFailure((error as NodeJS.ErrnoException).code, error), { file });
  } finally {
    closeSync(fd);
  }
}

function openFailure(code: string | undefined, error: unknown): string {
  if (code === "ENOENT") return "no such file";
  if (code === "EISDIR") return "is a directory, not a config file";
  if (code === "EACCES") return "permission denied";
  return `cannot read (${code ?? String(error)})`;
}

function kindOf(stat: Stats): string {
  if (stat.isFIFO()) return "named pipe (FIFO)";
  if (stat.isCharacterDevice()) return "character device";
  if (stat.isBlockDevice()) return "block device";
  if (stat.isSocket()) return "socket";
  return "special file";
}

function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "")} MiB` : `${bytes} bytes`;
}
