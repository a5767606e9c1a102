import { diffArrays } from "diff";

/**
 * A tool call's arguments as a person reviews them, before any screen: each argument as a
 * value, as the lines of a multi-line string, or, for edits of a file (objects holding exactly
 * `oldText` and `newText`, as server-filesystem's `edit_file` sends them), as a line diff. A
 * front end lays these out; nothing is left out or summarised, so what is allowed is what was seen.
 */
export type ArgumentBlock =
  /** A value shown as JSON (indented when it is an object). */
  | { kind: "value"; name: string; json: string }
  /** A string of several lines, as its lines. */
  | { kind: "text"; name: string; lines: string[] }
  /** Replacements in a file: each edit's old lines against its new ones. */
  | { kind: "edits"; name: string; edits: EditDiff[] };

export interface DiffLine {
  kind: "same" | "removed" | "added";
  text: string;
}

export interface EditDiff {
  lines: DiffLine[];
  removed: number;
  added: number;
}

/** Edits whose lines would take more steps than this to match are shown as all old lines, then all new: bounded work. */
const MAX_DIFF_EDIT_LENGTH = 2000;

export function argumentBlocks(args: Record<string, unknown>): ArgumentBlock[] {
  const blocks: ArgumentBlock[] = [];
  for (const [name, value] of Object.entries(args)) {
    const edits = editsIn(value);
    if (edits) blocks.push({ kind: "edits", name, edits: edits.map(({ oldText, newText }) => diffEdit(oldText, newText)) });
    else if (hasMultiLineString(value)) blocks.push(...leaves(name, value));
    else blocks.push(valueBlock(name, value));
  }
  return blocks;
}

/** The lines of `oldText` against those of `newText`. */
export function diffEdit(oldText: string, newText: string): EditDiff {
  const before = splitLines(oldText);
  const after = splitLines(newText);
  const changes = diffArrays(before, after, { maxEditLength: MAX_DIFF_EDIT_LENGTH }) ?? [
    { value: before, removed: true, added: false, count: before.length },
    { value: after, removed: false, added: true, count: after.length },
  ];
  const lines: DiffLine[] = [];
  for (const change of changes) {
    const kind = change.removed ? "removed" : change.added ? "added" : "same";
    for (const text of change.value) lines.push({ kind, text });
  }
  return { lines, removed: lines.filter((l) => l.kind === "removed").length, added: lines.filter((l) => l.kind === "added").length };
}

function splitLines(text: string): string[] {
  return text === "" ? [] : text.split(/\r?\n/);
}

type Edit = { oldText: string; newText: string };

function isEdit(value: unknown): value is Edit {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const edit = value as Record<string, unknown>;
  return keys.length === 2 && typeof edit.oldText === "string" && typeof edit.newText === "string";
}

/** An edit, or a non-empty list of edits; undefined for anything else (an edit with more fields is shown as it is). */
function editsIn(value: unknown): Edit[] | undefined {
  if (isEdit(value)) return [value];
  if (Array.isArray(value) && value.length > 0 && value.every(isEdit)) return value;
  return undefined;
}

function hasMultiLineString(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\n");
  if (typeof value !== "object" || value === null) return false;
  return Object.values(value).some(hasMultiLineString);
}

/** A value holding multi-line strings, one block per leaf, named by its path (`files[0].content`). */
function leaves(path: string, value: unknown): ArgumentBlock[] {
  if (typeof value === "string" && value.includes("\n")) return [{ kind: "text", name: path, lines: value.split(/\r?\n/) }];
  if (Array.isArray(value)) return value.flatMap((item, index) => leaves(`${path}[${index}]`, item));
  if (typeof value === "object" && value !== null && hasMultiLineString(value)) {
    return Object.entries(value).flatMap(([key, item]) => leaves(`${path}.${key}`, item));
  }
  return [valueBlock(path, value)];
}

function valueBlock(name: string, value: unknown): ArgumentBlock {
  return { kind: "value", name, json: JSON.stringify(value, null, 2) ?? "null" };
}
