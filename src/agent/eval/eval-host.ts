import type { CallToolOptions, CallToolResult, HubTool } from "../../mcp/types.js";
import type { ToolHost } from "../tool-host.js";
import type { DecoyTool, Toolset } from "./task-set.js";

/** The server name decoys are listed under; no configured server can take it (config keys do not contain spaces). */
export const DECOY_SERVER = "eval decoys";

/**
 * The hub's tools and the task file's decoys side by side: a decoy is offered like any tool,
 * and a call of one is answered with an error (it is a wrong tool) without reaching a server.
 */
export class EvalToolHost implements ToolHost {
  private readonly decoys: HubTool[];
  private readonly decoyNames: ReadonlySet<string>;
  private lastSource: readonly HubTool[] | undefined;
  private listed: readonly HubTool[] = [];

  constructor(
    private readonly inner: ToolHost,
    decoys: readonly DecoyTool[],
  ) {
    this.decoys = decoys.map((decoy) => ({ name: decoy.name, originalName: decoy.name, server: DECOY_SERVER, description: decoy.description, inputSchema: { type: "object", ...decoy.inputSchema } }));
    this.decoyNames = new Set(this.decoys.map((decoy) => decoy.name));
  }

  /** The same array until the hub's list changes, so the agent's catalog converts it once. */
  tools(): readonly HubTool[] {
    const source = this.inner.tools();
    if (source !== this.lastSource) {
      this.lastSource = source;
      // A hub tool of a decoy's name wins: the decoy is dropped.
      const taken = new Set(source.map((tool) => tool.name));
      this.listed = [...source, ...this.decoys.filter((decoy) => !taken.has(decoy.name))];
    }
    return this.listed;
  }

  callTool(name: string, args: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolResult> {
    if (this.decoyNames.has(name) && !this.inner.tools().some((tool) => tool.name === name)) {
      return Promise.resolve({ content: [{ type: "text", text: `${name} is not available here.` }], isError: true });
    }
    return this.inner.callTool(name, args, options);
  }
}

/** Which tools a task's toolset offers, by the server that lists them (the bundled servers are named time and math). */
export function toolsetFilter(toolset: Toolset): (tool: HubTool) => boolean {
  switch (toolset) {
    case "math":
      return (tool) => tool.server === "math";
    case "time":
      return (tool) => tool.server === "time";
    case "all":
      return (tool) => tool.server === "math" || tool.server === "time";
    case "all+decoys":
      return (tool) => tool.server === "math" || tool.server === "time" || tool.server === DECOY_SERVER;
  }
}
