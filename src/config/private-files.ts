import { constants, lstatSync, mkdirSync, statSync, type Stats } from "node:fs";
import { dirname } from "node:path";

/**
 * Files toolbridge keeps for the user alone (servers' log, the gateway's stored responses):
 * in a directory of the user's that no one else may write into, opened without following a
 * symlink, 0600. One place for these checks, so every such file gets all of them.
 */

/** Added to open() flags: a symlink planted where the file goes fails the open (ELOOP) instead of being followed. */
export const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** The sticky bit: in such a directory (/tmp) only an entry's owner may rename or remove it. */
const STICKY = 0o1000;

/** A directory or file that is not safely the user's; the message names it and what to do. */
export class PrivateFileError extends Error {}

/**
 * Creates the directory 0700, or checks that an existing one is a directory of the user's, 0700,
 * not a symlink another user planted (`$TMPDIR/toolbridge-$UID` is guessable). Every directory
 * above it must let no one else swap what it holds (a world-writable `$XDG_STATE_HOME` without
 * the sticky bit): checked first, so nothing is made inside such a tree.
 */
export function privateDirectory(dir: string): void {
  for (let above = dirname(dir); ; above = dirname(above)) {
    const stat = statSync(above, { throwIfNoEntry: false });
    if (stat && (stat.mode & 0o022) !== 0 && (stat.mode & STICKY) === 0) {
      throw new PrivateFileError(`${above} is writable by other users (mode ${octal(stat.mode)}), who could replace ${dir}: use a directory of your own`);
    }
    if (stat && stat.uid !== 0 && !ours(stat)) throw new PrivateFileError(`${above} belongs to another user, who could replace ${dir}: use a directory of your own`);
    if (above === dirname(above)) break;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) throw new PrivateFileError(`${dir} is not a directory (a symlink is not followed): remove it`);
  if (!ours(stat)) throw new PrivateFileError(`${dir} belongs to another user: remove it or choose another directory`);
  if ((stat.mode & 0o077) !== 0) throw new PrivateFileError(`${dir} is open to other users (mode ${octal(stat.mode)}): make it private with chmod 700 after checking what it holds`);
}

/**
 * Checks a file just opened (with NO_FOLLOW): a regular file of the user's. Returns whether its
 * mode must be narrowed to 0600 (a file made by an older version, or copied in).
 */
export function checkPrivateFile(stat: Stats, file: string): { narrow: boolean } {
  if (!stat.isFile()) throw new PrivateFileError(`${file} is not a regular file`);
  if (!ours(stat)) throw new PrivateFileError(`${file} belongs to another user`);
  return { narrow: (stat.mode & 0o077) !== 0 };
}

function ours(stat: Stats): boolean {
  return !process.getuid || stat.uid === process.getuid();
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, "0");
}
