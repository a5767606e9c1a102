import type { HubTool } from "../mcp/types.js";
import { validateToolArguments } from "../agent/tool-arguments.js";
import { qualifiedName } from "../mcp/tool-names.js";
import { UsageError } from "./errors.js";

/**
 * The tool a person means by NAME on the command line: the exposed name, `server__tool`
 * (as exposed or with the server's own tool name), or the server's own name of a tool that
 * had to be renamed (`greet.user`, exposed as `greet_user`). A name two servers offer is
 * ambiguous, and says which names would not be. Undefined when nothing matches (the hub
 * then says so, listing the tools).
 */
export function findTool(tools: readonly HubTool[], name: string): HubTool | undefined {
  const exact = tools.find((tool) => tool.name === name);
  if (exact) return exact;
  const qualified = tools.find((tool) => `${tool.server}__${tool.originalName}` === name || qualifiedName(tool.server, tool.originalName) === name);
  if (qualified) return qualified;
  const own = tools.filter((tool) => tool.originalName === name);
  if (own.length > 1) throw new UsageError(`ambiguous: "${name}" is offered by ${own.length} servers; call one of ${own.map((tool) => tool.name).join(", ")}`);
  return own[0];
}

/** The arguments are checked against the tool's input schema before the server sees them, as the agent checks a model's. */
export function checkArguments(tool: HubTool, args: Record<string, unknown>): void {
  const check = validateToolArguments(tool.name, tool.inputSchema, args);
  if (check.ok) return;
  const problems = check.problems?.join("; ") ?? check.message;
  throw new UsageError(`arguments for "${tool.name}" do not match its input schema: ${problems} (see \`toolbridge tools ${tool.name}\`)`);
}
