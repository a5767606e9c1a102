import { appendFileSync, chmodSync, readFileSync, writeFileSync } from "node:fs";

/** Entries kept; older ones are dropped when the file is rewritten. */
export const MAX_HISTORY_ENTRIES = 1000;
/** An entry longer than this (a huge paste) is not remembered. */
export const MAX_HISTORY_ENTRY_CHARS = 10_000;

/**
 * The messages the user sent, oldest first, kept in a file (one JSON string per line, so
 * multi-line messages survive) that only the user can read. A file that cannot be read or
 * written is not an error: the chat goes on without remembering.
 */
export class InputHistory {
  private entries: string[];

  private constructor(
    private readonly file: string | undefined,
    entries: string[],
  ) {
    this.entries = entries;
  }

  static load(file: string | undefined): InputHistory {
    if (file === undefined) return new InputHistory(undefined, []);
    let text = "";
    try {
      text = readFileSync(file, "utf8");
    } catch {
      return new InputHistory(file, []);
    }
    const entries: string[] = [];
    for (const line of text.split("\n")) {
      if (line === "") continue;
      try {
        const value: unknown = JSON.parse(line);
        if (typeof value === "string") entries.push(value);
      } catch {
        // A damaged line is skipped; the rest is still history.
      }
    }
    return new InputHistory(file, entries.slice(-MAX_HISTORY_ENTRIES));
  }

  get all(): readonly string[] {
    return this.entries;
  }

  add(entry: string): void {
    if (entry.trim() === "" || entry.length > MAX_HISTORY_ENTRY_CHARS || this.entries.at(-1) === entry) return;
    this.entries.push(entry);
    if (this.file === undefined) return;
    try {
      if (this.entries.length > MAX_HISTORY_ENTRIES * 1.2) {
        this.entries = this.entries.slice(-MAX_HISTORY_ENTRIES);
        writeFileSync(this.file, this.entries.map((e) => JSON.stringify(e) + "\n").join(""), { mode: 0o600 });
      } else {
        appendFileSync(this.file, JSON.stringify(entry) + "\n", { mode: 0o600 });
      }
      chmodSync(this.file, 0o600);
    } catch {
      // Not remembered; nothing to tell the user mid-chat.
    }
  }
}
