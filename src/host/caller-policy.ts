import { ApprovalPolicy, type ApprovalMode, type ApprovalRules, type ServerApprovalConfig } from "../agent/approval.js";
import type { ToolFilter } from "../agent/tool-host.js";
import type { HubTool } from "../mcp/types.js";

/**
 * What a caller of the gateway (or of `serve hub`) may see and run: ONE decision over
 * (caller, server, tool or resource or prompt), taken by every route that reaches a server
 * (`/mcp`, the web chat's `/api/resource`, `/api/prompt`, `/api/app-tool`). A route where a
 * person can be asked (the web chat) turns `ask` into a question; one where nobody can be (`/mcp`,
 * `serve hub`) refuses it. Reading resources and prompts counts as running something of the
 * server's: unasked only where its tools would be (mode `readonly` or `all`, or a trusted server).
 */

export type PolicySubject =
  | { kind: "tool"; tool: HubTool }
  | { kind: "resource"; server: string; uri: string }
  | { kind: "prompt"; server: string; name: string };

/** `reason` is a phrase (what refused it); `rule` names the deny rule when one did. */
export type CallerDecision = { action: "allow" } | { action: "ask" } | { action: "refuse"; reason: string; rule?: string };

export interface CallerPolicySettings {
  approve: ApprovalMode;
  servers: Readonly<Record<string, ServerApprovalConfig>>;
  /** The tool allow-list (`tools.enabled` / `tools.disabled`): a tool outside it is refused on every route. */
  toolFilter?: ToolFilter;
  /** The config's allow and deny rules by pattern (`permissions`): a denied tool is refused, nobody asked. */
  rules?: ApprovalRules;
}

export class CallerPolicy {
  private readonly approval: ApprovalPolicy;

  constructor(private readonly settings: CallerPolicySettings) {
    // Fresh: nothing is allowed for a session here; a turn's own policy holds the person's "for this session".
    this.approval = new ApprovalPolicy({ mode: settings.approve, servers: settings.servers, ...(settings.rules ? { rules: settings.rules } : {}) });
  }

  /**
   * `caller` is the key that asks (its digest, or "anonymous" without keys): today no rule
   * differs by key, and a route must still name who asks, so a rule per key has one place to go.
   */
  decide(caller: string, subject: PolicySubject): CallerDecision {
    void caller;
    if (subject.kind === "tool") {
      if (this.settings.toolFilter && !this.settings.toolFilter(subject.tool)) return { action: "refuse", reason: `the tool ${subject.tool.name} is not offered here (tools.enabled / tools.disabled)` };
      const verdict = this.approval.verdict(subject.tool);
      if (verdict.allowed) return { action: "allow" };
      // A deny rule is not asked about: nobody's approval runs it.
      if (verdict.denied !== undefined) return { action: "refuse", reason: `${subject.tool.name} is denied by the rule "${verdict.denied}" in the configuration`, rule: verdict.denied };
      return { action: "ask" };
    }
    return this.approval.readsUnasked(subject.server) ? { action: "allow" } : { action: "ask" };
  }

  /** Whether `caller` may have it with nobody to ask (`/mcp`, `serve hub`). */
  allowsUnasked(caller: string, subject: PolicySubject): boolean {
    return this.decide(caller, subject).action === "allow";
  }
}
