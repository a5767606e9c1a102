import type { HubPrompt, HubResource, HubResourceTemplate, HubSkill, HubTool, ServerState } from "../../mcp/types.js";
import type { Colors } from "./colors.js";
import { renderTable, type Column } from "./table.js";
import { cleanTerminalText } from "./terminal-text.js";

export interface ListingOptions {
  colors: Colors;
  /** Terminal width; long descriptions and errors are cut to it. Unset off a terminal. */
  maxWidth?: number;
}

function statusColor(c: Colors): (text: string, state: ServerState) => string {
  return (text, state) => {
    if (state.needsLogin) return c.yellow(text);
    if (state.status === "connected") return c.green(text);
    if (state.status === "failed") return c.red(text);
    if (state.status === "disabled" || state.status === "closed") return c.dim(text);
    return c.yellow(text);
  };
}

export function renderServers(states: readonly ServerState[], options: ListingOptions): string {
  const c = options.colors;
  const count = (n: number, state: ServerState) => (state.status === "connected" ? String(n) : "-");
  const columns: Column<ServerState>[] = [
    { header: "NAME", value: (s) => s.name, color: (text) => c.bold(text) },
    { header: "TRANSPORT", value: (s) => s.transport, dropOrder: 1 },
    { header: "STATUS", value: (s) => (s.needsLogin ? "needs login" : s.status), color: statusColor(c) },
    { header: "TOOLS", value: (s) => count(s.toolCount, s), align: "right" },
    { header: "RESOURCES", value: (s) => count(s.resourceCount, s), align: "right" },
    { header: "PROMPTS", value: (s) => count(s.promptCount, s), align: "right" },
    // The protocol revision negotiated (or pinned): which era this server is spoken to in.
    { header: "PROTOCOL", value: (s) => (s.status === "connected" ? (s.protocolVersion ?? "") : "-") },
    // At 60 columns the counts, the status and the protocol stay; what the server calls itself, its connect time
    // and the transport go first.
    { header: "SERVER", value: (s) => [s.serverName, s.serverVersion].filter(Boolean).join(" "), shrink: true, dropOrder: 2 },
    { header: "CONNECT", value: (s) => (s.connectMs === undefined ? "" : `${Math.round(s.connectMs)} ms`), align: "right", dropOrder: 3 },
  ];
  return renderTable(columns, states, options) + renderFailures(states, c);
}

/**
 * Each failure in full below the table, never cut to a column: the message, then the
 * last lines the server wrote to stderr, which are usually the real reason.
 */
function renderFailures(states: readonly ServerState[], c: Colors): string {
  const failed = states.filter((state) => state.error !== undefined && state.error !== "");
  return failed
    .map((state) => {
      const tail = state.stderrTail ?? [];
      // The message ends with a summary of the same stderr lines, shown whole below it.
      const message = tail.length > 0 ? state.error!.replace(/; stderr: [\s\S]*$/, "") : state.error!;
      const lines = [`\n${c.bold(cleanTerminalText(state.name))}: ${c.red(cleanTerminalText(message))}`];
      if (tail.length > 0) lines.push(c.dim("  stderr:"), ...tail.map((line) => `    ${cleanTerminalText(line)}`));
      return `${lines.join("\n")}\n`;
    })
    .join("");
}

/** First line of a description: the rest rarely fits a table and is in `--json`. */
function summary(description: string | undefined): string {
  return (description ?? "").trim().split(/\r?\n/)[0]?.trim() ?? "";
}

export function renderTools(tools: readonly HubTool[], options: ListingOptions): string {
  const c = options.colors;
  const renamed = tools.some((tool) => tool.name !== tool.originalName);
  const columns: Column<HubTool>[] = [
    { header: "NAME", value: (t) => t.name, color: (text) => c.bold(text) },
    { header: "SERVER", value: (t) => t.server },
    ...(renamed ? [{ header: "SERVER'S NAME", value: (t: HubTool) => (t.name === t.originalName ? "" : t.originalName) }] : []),
    { header: "DESCRIPTION", value: (t) => summary(t.description), shrink: true },
  ];
  return renderTable(columns, tools, options);
}

type Listed = { name: string; title?: string; mimeType?: string; server: string; description?: string };

/** Resources and resource templates share every column but the first. */
function resourceColumns<T extends Listed>(first: Column<T>): Column<T>[] {
  return [
    first,
    { header: "NAME", value: (r) => r.title ?? r.name, shrink: true, dropOrder: 2 },
    { header: "MIME TYPE", value: (r) => r.mimeType ?? "", dropOrder: 4 },
    { header: "SERVER", value: (r) => r.server },
    { header: "DESCRIPTION", value: (r) => summary(r.description), shrink: true, dropOrder: 3 },
  ];
}

export function renderResources(resources: readonly HubResource[], options: ListingOptions): string {
  const uri: Column<HubResource> = { header: "URI", value: (r) => r.uri, color: (text) => options.colors.bold(text), whole: true };
  return renderTable(resourceColumns(uri), resources, options);
}

export function renderResourceTemplates(templates: readonly HubResourceTemplate[], options: ListingOptions): string {
  const template: Column<HubResourceTemplate> = { header: "URI TEMPLATE", value: (t) => t.uriTemplate, color: (text) => options.colors.bold(text), whole: true };
  return renderTable(resourceColumns(template), templates, options);
}

export function renderPrompts(prompts: readonly HubPrompt[], options: ListingOptions): string {
  const columns: Column<HubPrompt>[] = [
    { header: "NAME", value: (p) => p.name, color: (text) => options.colors.bold(text) },
    { header: "SERVER", value: (p) => p.server },
    // A star marks a required argument.
    { header: "ARGUMENTS", value: (p) => (p.arguments ?? []).map((a) => `${a.name}${a.required ? "*" : ""}`).join(", ") },
    { header: "DESCRIPTION", value: (p) => summary(p.description), shrink: true },
  ];
  return renderTable(columns, prompts, options);
}

/** Skills (SEP-2640) as listed: nothing of theirs was read to show this. */
export function renderSkills(skills: readonly HubSkill[], options: ListingOptions): string {
  const columns: Column<HubSkill>[] = [
    { header: "NAME", value: (s) => s.name, color: (text) => options.colors.bold(text) },
    { header: "SERVER", value: (s) => s.server },
    { header: "FILES", value: (s) => String(s.files) },
    { header: "SUMMARY", value: (s) => summary(s.description), shrink: true },
  ];
  return renderTable(columns, skills, options);
}
