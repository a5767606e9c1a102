import { z } from "zod";
import type { ProbeRow } from "../agent/tool-mode-probe.js";
import { PROBED_MODES } from "../agent/tool-mode.js";
import { strictKey, type StrictToolsMemory } from "../llm/strict-tools.js";
import { newestEntries, readStateFile, stateFilePath, writeStateFile } from "./state-file.js";

type Env = Readonly<Record<string, string | undefined>>;

const RowSchema = z.object({ mode: z.enum(PROBED_MODES), ok: z.boolean(), ms: z.number(), detail: z.string().optional() });
/** One mode's share of an eval: what `--tool-mode auto` compares. */
const EvalRowSchema = z.object({ mode: z.enum(PROBED_MODES), tasks: z.number().int().nonnegative(), right: z.number().int().nonnegative() });
export type EvalRow = z.infer<typeof EvalRowSchema>;
const EntrySchema = z.object({
  /** ISO time of the last change, for dropping the oldest entries. */
  at: z.string(),
  rows: z.array(RowSchema).max(PROBED_MODES.length).optional(),
  /** The last `toolbridge eval` of this model, per mode: followed instead of the probe. */
  eval: z.array(EvalRowSchema).max(PROBED_MODES.length).optional(),
  strictRefused: z.boolean().optional(),
});
const FileSchema = z.object({ version: z.literal(1), models: z.record(z.string(), EntrySchema) });
type Entry = z.infer<typeof EntrySchema>;

/** A file bigger than this is not ours to read (hundreds of entries take a few KB each). */
const MAX_FILE_BYTES = 1024 * 1024;
/** Models remembered; the oldest go first. */
const MAX_ENTRIES = 200;

/**
 * What was learnt about each server and model's tool calling, kept between runs in the
 * state directory (`tool-modes.json`, 0600): the probe's table, the last eval's tasks right
 * per mode, and whether the server refuses `strict`. Keyed by the server's URL without credentials and the model's name.
 * A file that cannot be read or parsed counts as empty and is replaced on the next write.
 */
export class ToolModeCache implements StrictToolsMemory {
  /** Read once per process: the adapter asks about `strict` on every request. */
  private models: Record<string, Entry> | undefined;

  private constructor(readonly file: string) {}

  /** The cache in the user's state directory; undefined when that cannot be made (no home, read-only). */
  static open(env: Env): ToolModeCache | undefined {
    const file = stateFilePath(env, "tool-modes.json");
    return file === undefined ? undefined : new ToolModeCache(file);
  }

  /** The probe's table for this server and model, when one was made. */
  probe(server: string, model: string): ProbeRow[] | undefined {
    return this.read()[strictKey(server, model)]?.rows;
  }

  saveProbe(server: string, model: string, rows: readonly ProbeRow[]): void {
    this.update(server, model, { rows: [...rows] });
  }

  /** The last eval's tasks right per mode for this server and model, when one was run. */
  evalRows(server: string, model: string): EvalRow[] | undefined {
    return this.read()[strictKey(server, model)]?.eval;
  }

  saveEval(server: string, model: string, rows: readonly EvalRow[]): void {
    this.update(server, model, { eval: rows.map(({ mode, tasks, right }) => ({ mode, tasks, right })) });
  }

  refuses(server: string, model: string): boolean {
    return this.read()[strictKey(server, model)]?.strictRefused === true;
  }

  remember(server: string, model: string): void {
    this.update(server, model, { strictRefused: true });
  }

  private update(server: string, model: string, change: Partial<Entry>): void {
    const models = this.read();
    const key = strictKey(server, model);
    models[key] = { ...models[key], ...change, at: new Date().toISOString() };
    this.models = newestEntries(models, MAX_ENTRIES);
    // Not remembering is no reason to fail a run: the probe is made again next time.
    writeStateFile(this.file, { version: 1, models: this.models });
  }

  private read(): Record<string, Entry> {
    this.models ??= readStateFile(this.file, FileSchema, MAX_FILE_BYTES)?.models ?? {};
    return this.models;
  }
}
