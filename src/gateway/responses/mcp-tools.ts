import type { ApprovalPolicy } from "../../agent/approval.js";
import type { HubTool } from "../../mcp/types.js";
import { WireError } from "../openai-wire.js";
import { McpToolSchema, type McpTool, type ResponsesRequest } from "./wire.js";

/**
 * OpenAI's remote-MCP tool (`{"type": "mcp", server_label, server_url, allowed_tools,
 * require_approval}`) read against the configuration: a label names a configured server (or
 * its URL does); the gateway connects to nothing a request names. Without such tools every
 * allowed hub tool is offered and runs as the policy says, as in chat completions.
 */
export interface McpSelection {
  /** True when the request named servers: their tools only, their calls shown as `mcp_call` items. */
  explicit: boolean;
  /** The named servers' labels, each with its tools as `mcp_list_tools` shows them. */
  servers: { label: string; tools: HubTool[] }[];
  /** Narrows the hub's tools to those the request allows (explicit only). */
  filter?: (tool: HubTool) => boolean;
  /** Tools that run only once the client approves a call (by exposed name). */
  needApproval: Map<string, HubTool>;
}

export function selectMcpTools(
  tools: ResponsesRequest["tools"],
  offered: readonly HubTool[],
  servers: Readonly<Record<string, { url?: string }>>,
  policy: ApprovalPolicy,
): McpSelection {
  const declared = (tools ?? []).flatMap((tool, index) => (tool.type === "mcp" ? [{ tool: McpToolSchema.parse(tool), index }] : []));
  if (declared.length === 0) return { explicit: false, servers: [], needApproval: new Map() };
  const allowed = new Set<HubTool>();
  const needApproval = new Map<string, HubTool>();
  const selected = declared.map(({ tool, index }) => {
    const label = serverFor(tool, servers, index);
    const mine = offered.filter((hubTool) => hubTool.server === label && passes(tool.allowed_tools, hubTool));
    for (const hubTool of mine) {
      allowed.add(hubTool);
      // The operator's policy has the last word: what it does not allow is asked about, whatever the request says.
      if (asksClient(tool.require_approval, hubTool) || !policy.verdict(hubTool).allowed) needApproval.set(hubTool.name, hubTool);
    }
    return { label: tool.server_label, tools: mine };
  });
  return { explicit: true, servers: selected, filter: (tool) => allowed.has(tool), needApproval };
}

function serverFor(tool: McpTool, servers: Readonly<Record<string, { url?: string }>>, index: number): string {
  const where = `tools[${index}]`;
  const byLabel = Object.hasOwn(servers, tool.server_label) ? servers[tool.server_label] : undefined;
  if (byLabel) {
    if (tool.server_url !== undefined && byLabel.url !== undefined && !sameUrl(tool.server_url, byLabel.url)) {
      throw new WireError(`${where}.server_url: "${tool.server_url}" is not the URL configured for server "${tool.server_label}"`);
    }
    return tool.server_label;
  }
  const byUrl = tool.server_url === undefined ? undefined : Object.entries(servers).find(([, server]) => server.url !== undefined && sameUrl(server.url, tool.server_url as string));
  if (byUrl) return byUrl[0];
  throw new WireError(`${where}: no configured MCP server is named "${tool.server_label}"${tool.server_url ? ` or has the URL ${tool.server_url}` : ""}; the gateway connects only to servers its configuration names`);
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href.replace(/\/$/, "") === new URL(b).href.replace(/\/$/, "");
  } catch {
    return a === b;
  }
}

type Filter = { tool_names?: string[] | undefined; read_only?: boolean | undefined };

function matches(filter: Filter | undefined, tool: HubTool): boolean {
  if (!filter) return false;
  if (filter.tool_names?.includes(tool.originalName)) return true;
  return filter.read_only === true && tool.annotations?.readOnlyHint === true;
}

function passes(allowed: McpTool["allowed_tools"], tool: HubTool): boolean {
  if (allowed == null) return true;
  if (Array.isArray(allowed)) return allowed.includes(tool.originalName);
  return matches(allowed, tool);
}

/** OpenAI's default is to ask; "never", or a `never` filter the tool matches, does not. */
function asksClient(require: McpTool["require_approval"], tool: HubTool): boolean {
  if (require === "never") return false;
  if (require == null || require === "always") return true;
  if (matches(require.never, tool)) return false;
  return true;
}
