import { formatBytes } from "../render/media.js";

/**
 * A long paste stands in the input box as one short label (`[pasted 366.2 KB, 4,210 lines]`)
 * and is put back whole when the message is sent, as Claude Code does: drawing and editing a
 * megabyte in the box would cost every key its size, and nobody edits a log in a one-line box.
 */
export interface PastedText {
  label: string;
  text: string;
}

/** A paste longer than either bound is shown as its label. */
export const COLLAPSE_PASTE_CHARS = 1000;
export const COLLAPSE_PASTE_LINES = 10;

export function shouldCollapse(text: string): boolean {
  if (text.length > COLLAPSE_PASTE_CHARS) return true;
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1 && lines <= COLLAPSE_PASTE_LINES; at = text.indexOf("\n", at + 1)) lines += 1;
  return lines > COLLAPSE_PASTE_LINES;
}

/** The label of a paste, numbered when an earlier one in the same message would have the same; `cutAt` when only the start was kept. */
export function pasteLabel(text: string, taken: readonly PastedText[], cutAt?: number): string {
  const lines = text.split("\n").length;
  const cut = cutAt === undefined ? "" : `, cut at ${cutAt.toLocaleString("en-US")} characters`;
  const base = `pasted ${formatBytes(Buffer.byteLength(text))}, ${lines.toLocaleString("en-US")} line${lines === 1 ? "" : "s"}${cut}`;
  let label = `[${base}]`;
  for (let n = 2; taken.some((p) => p.label === label); n += 1) label = `[${base} #${n}]`;
  return label;
}

/** The message as sent: each label still in it replaced by its paste, in one pass (a paste that holds a label is left as it is). */
export function expandPastes(text: string, pastes: readonly PastedText[]): string {
  const present = pastes.filter((p) => text.includes(p.label));
  if (present.length === 0) return text;
  const byLabel = new Map(present.map((p) => [p.label, p.text]));
  const pattern = new RegExp(present.map((p) => p.label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
  return text.replace(pattern, (label) => byLabel.get(label) ?? label);
}

/** The label ending at `cursor`, if any: Backspace there deletes the paste whole. */
export function labelBefore(text: string, cursor: number, pastes: readonly PastedText[]): PastedText | undefined {
  return pastes.find((p) => cursor >= p.label.length && text.startsWith(p.label, cursor - p.label.length));
}
