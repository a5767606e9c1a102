import type { ProbeRow } from "../../agent/tool-mode-probe.js";
import { bestMode } from "../../agent/tool-mode-probe.js";
import { loadConfig } from "../../config/load.js";
import { redactUrl } from "../../config/redact.js";
import { createChatModel } from "../../llm/create-model.js";
import { applyFlags } from "../chat/session.js";
import { ReportedFailure, warn } from "../errors.js";
import { colorsFor } from "../render/colors.js";
import { renderTable } from "../render/table.js";
import { ToolModeCache } from "../../host/tool-mode-cache.js";
import { probeAndCache } from "../../host/tool-mode-choice.js";

export interface ProbeFlags {
  baseUrl?: string;
  provider?: string;
  config?: string;
  json?: boolean;
}

/** Probes the model (always anew), caches the result, prints the table; fails when no mode made the call. */
export async function probe(modelName: string | undefined, flags: ProbeFlags): Promise<void> {
  const env = process.env;
  const loaded = loadConfig({ file: flags.config, cwd: process.cwd(), env });
  for (const warning of loaded.warnings) warn(`${loaded.path}: ${warning}`, env);
  const llm = applyFlags(loaded.config.llm ?? {}, { ...flags, ...(modelName !== undefined ? { model: modelName } : {}) });
  const cache = ToolModeCache.open(env);
  const model = await createChatModel(llm, env, cache ? { strictMemory: cache } : {});
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  let rows: ProbeRow[];
  try {
    rows = await probeAndCache(model, llm, cache, stop.signal);
  } finally {
    process.off("SIGINT", onSignal);
  }
  const best = bestMode(rows);
  const where = model.baseURL ? redactUrl(model.baseURL) : model.provider;
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ model: model.modelId, server: where, best: best ?? null, modes: rows }, null, 2)}\n`);
  } else {
    const c = colorsFor(process.stdout, env);
    process.stdout.write(`${c.bold(model.modelId)} ${c.dim(`at ${where}`)}\n`);
    process.stdout.write(
      renderTable(
        [
          { header: "MODE", value: (row: ProbeRow) => row.mode, color: (text, row) => (row.mode === best ? c.bold(text) : text) },
          { header: "RESULT", value: (row) => (row.ok ? "ok" : "fail"), color: (text, row) => (row.ok ? c.green(text) : c.yellow(text)) },
          { header: "MS", value: (row) => String(row.ms), align: "right" },
          { header: "DETAIL", value: (row) => row.detail ?? "", shrink: true },
        ],
        rows,
        { colors: c, ...(process.stdout.isTTY && process.stdout.columns ? { maxWidth: process.stdout.columns } : {}) },
      ),
    );
    process.stdout.write(best ? `best: ${best}${cache ? " (cached; --tool-mode auto follows it)" : ""}\n` : "no mode made the tool call\n");
  }
  if (stop.signal.aborted) throw new ReportedFailure(130);
  if (!best) throw new ReportedFailure();
}
