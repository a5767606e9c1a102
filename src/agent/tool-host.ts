import type { CallToolOptions, CallToolResult, HubTool } from "../mcp/types.js";
import type { ToolDefinition } from "../llm/types.js";

/**
 * All the agent needs from the hub. Kept this narrow so the loop runs against fakes in
 * tests and against anything else that can list and call tools.
 */
export interface ToolHost {
  tools(): readonly HubTool[];
  /**
   * Brings `tools()` up to date where a list may have gone stale (a server's caching hint): the agent
   * awaits it before each model request that offers tools. Should not reject for a server that fails
   * to list (the list it gave is kept), only when `signal` aborts.
   */
  refreshTools?(signal?: AbortSignal): Promise<void>;
  callTool(name: string, args: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolResult>;
  /** What a call is approved as, when that is not the listed tool itself (a built-in acting for one server). */
  approvalSubject?(tool: HubTool, args: Record<string, unknown>): HubTool;
}

/** Decides which of the host's tools the model is offered (the config's allow-list, for one). */
export type ToolFilter = (tool: HubTool) => boolean;

/** The tools offered to the model, under their exposed names, filtered by the allow-list. */
export class ToolCatalog {
  private lastSource: readonly HubTool[] | undefined;
  private offered: readonly HubTool[] = [];
  private byName = new Map<string, HubTool>();
  private definitions: ToolDefinition[] = [];

  /** Without a filter every tool of the host is offered. */
  constructor(
    private readonly host: ToolHost,
    private readonly filter?: ToolFilter,
  ) {}

  /** Re-reads the host's list; conversion happens only when the list changed (the hub hands out a new array then). */
  refresh(): void {
    const source = this.host.tools();
    if (source === this.lastSource) return;
    this.lastSource = source;
    this.offered = this.filter ? source.filter(this.filter) : source;
    this.byName = new Map(this.offered.map((tool) => [tool.name, tool]));
    this.definitions = this.offered.map(toToolDefinition);
  }

  get tools(): readonly HubTool[] {
    return this.offered;
  }

  get toolDefinitions(): ToolDefinition[] {
    return this.definitions;
  }

  get(name: string): HubTool | undefined {
    return this.byName.get(name);
  }
}

export function toToolDefinition(tool: HubTool): ToolDefinition {
  const description = tool.description ?? tool.title;
  return description === undefined
    ? { name: tool.name, parameters: tool.inputSchema }
    : { name: tool.name, description, parameters: tool.inputSchema };
}
