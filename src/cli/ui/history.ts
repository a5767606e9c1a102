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
    /** Lines in the file, which is appended to and rewritten only when it has grown well past the bound. */
    private fileLines: number,
  ) {
    this.entries = entries;
  }

  static load(file: string | undefined): InputHistory {
    if (file === undefined) return new InputHistory(undefined, [], 0);
    let text = "";
    try {
      text = readFileSync(file, "utf8");
    } catch {
      return new InputHistory(file, [], 0);
    }
    const entries: string[] = [];
    let lines = 0;
    for (const line of text.split("\n")) {
      if (line === "") continue;
      lines += 1;
      try {
        const value: unknown = JSON.parse(line);
        if (typeof value === "string") entries.push(value);
      } catch {
        // A damaged line is skipped; the rest is still history.
      }
    }
    return new InputHistory(file, entries.slice(-MAX_HISTORY_ENTRIES), lines);
  }

  get all(): readonly string[] {
    return this.entries;
  }

  add(entry: string): void {
    if (entry.trim() === "" || entry.length > MAX_HISTORY_ENTRY_CHARS || this.entries.at(-1) === entry) return;
    this.entries.push(entry);
    if (this.file === undefined) return;
    try {
      this.entries = this.entries.slice(-MAX_HISTORY_ENTRIES);
      if (this.fileLines + 1 > MAX_HISTORY_ENTRIES * 1.2) {
        writeFileSync(this.file, this.entries.map((e) => JSON.stringify(e) + "\n").join(""), { mode: 0o600 });
        this.fileLines = this.entries.length;
      } else {
        appendFileSync(this.file, JSON.stringify(entry) + "\n", { mode: 0o600 });
        this.fileLines += 1;
      }
      chmodSync(this.file, 0o600);
    } catch {
      // Not remembered; nothing to tell the user mid-chat.
    }
  }
}
