import type { HubTask } from "../../mcp/types.js";
import { oneLine } from "./one-line.js";
import type { ListingOptions } from "./listings.js";
import { renderTable, type Column } from "./table.js";

/** Tasks of every server, one per line. */
export function renderTasks(tasks: readonly HubTask[], options: ListingOptions): string {
  const c = options.colors;
  const columns: Column<HubTask>[] = [
    { header: "ID", value: (t) => oneLine(t.taskId), color: (text) => c.bold(text) },
    { header: "SERVER", value: (t) => t.server },
    { header: "TOOL", value: (t) => t.tool ?? "" },
    { header: "STATUS", value: (t) => t.status, color: (text, t) => (t.status === "failed" ? c.red(text) : t.status === "completed" ? c.green(text) : c.yellow(text)) },
    { header: "UPDATED", value: (t) => t.lastUpdatedAt },
    { header: "MESSAGE", value: (t) => oneLine(t.statusMessage ?? ""), shrink: true },
  ];
  return renderTable(columns, tasks, options);
}

/** One task, a field per line. */
export function renderTask(task: HubTask, options: ListingOptions): string {
  const c = options.colors;
  const fields: [string, string | undefined][] = [
    ["task", task.taskId],
    ["server", task.server],
    ["tool", task.tool],
    ["status", task.status],
    ["message", task.statusMessage],
    ["created", task.createdAt],
    ["updated", task.lastUpdatedAt],
    ["ttl", task.ttl === null ? "unlimited" : `${task.ttl} ms`],
    ["poll every", task.pollInterval !== undefined ? `${task.pollInterval} ms` : undefined],
  ];
  return fields
    .filter((field): field is [string, string] => field[1] !== undefined)
    .map(([name, value]) => `${c.dim(name.padEnd(10))} ${oneLine(value)}`)
    .join("\n")
    .concat("\n");
}
