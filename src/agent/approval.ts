import { createHash } from "node:crypto";
import type { HubTool } from "../mcp/types.js";

/**
 * Who may run a tool without asking. Gemini CLI's `trust` and `--yolo`, Cline's
 * `autoApprove` / `alwaysAllow` and the MCP `readOnlyHint` annotation all come down to
 * this one policy, shared by every front end (the terminal, the gateway, a library user).
 *
 * - `ask`: only tools of trusted servers and tools the config lists run unasked;
 *   everything else is asked about (or refused when nobody can be asked).
 * - `readonly`: as `ask`, and tools their server marks `readOnlyHint: true` run unasked.
 *   An untrusted server could lie about the hint, so this is the user's explicit choice.
 * - `all`: every tool runs unasked (scripts, sandboxes).
 */
export const APPROVAL_MODES = ["ask", "readonly", "all"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** The approval keys of one server's config entry. */
export interface ServerApprovalConfig {
  /** Every tool of this server runs unasked. */
  trust?: boolean;
  /** Tools (the server's own names, or exposed names) that run unasked. */
  autoApprove?: readonly string[];
  /** Cline's name for autoApprove. */
  alwaysAllow?: readonly string[];
}

/** What the person is asked to decide. */
export interface ToolApprovalRequest {
  tool: HubTool;
  /** The call's arguments, parsed and checked against the tool's schema. */
  arguments: Record<string, unknown>;
  callId: string;
  /** Why the person is asked (see ApprovalPolicy.whyAsked), filled in by decideApproval. */
  why?: string;
}

/**
 * The person's answer: run it once, run this tool unasked for the rest of the session,
 * run every tool of its server unasked for the rest of the session (`allow-server`), or deny (the reason, if given, goes back to the model with the refusal).
 */
export type ApprovalAnswer = { decision: "allow-once" } | { decision: "allow-session" } | { decision: "allow-server" } | { decision: "deny"; reason?: string };

/** Asks a person and waits; front ends show their own dialog. Rejecting counts as deny. */
export type ApproveCallback = (request: ToolApprovalRequest, signal: AbortSignal | undefined) => Promise<ApprovalAnswer>;

/** A server asks to use the model (`sampling/createMessage`): who asks, and what. */
export interface SamplingApprovalRequest {
  server: string;
  systemPrompt?: string;
  /** The request's messages as text, one entry per message ("user: ..."). */
  messages: string[];
  maxTokens: number;
  /** Names of the tools the server offers the model, if any. */
  tools: string[];
  /** The model that would answer. */
  model: string;
}

/** As ApproveCallback; "allow-session" means: this server may sample unasked for the rest of the session. */
export type ApproveSamplingCallback = (request: SamplingApprovalRequest, signal: AbortSignal | undefined) => Promise<ApprovalAnswer>;

/**
 * Allow and deny rules by pattern over tool names (the config's `permissions`): `*` stands for
 * any run of characters, nothing else is special. A pattern matches a tool's exposed name or
 * `server__tool` (its server and own name), so `github__*` covers every tool of server github
 * whatever names the registry gave them. A deny rule wins over everything, mode `all` included.
 */
export interface ApprovalRules {
  allow?: readonly string[];
  deny?: readonly string[];
}

export interface ApprovalPolicyOptions {
  mode?: ApprovalMode;
  servers?: Readonly<Record<string, ServerApprovalConfig>>;
  rules?: ApprovalRules;
}

/**
 * Why a tool may run without asking, or that someone must be asked, or (`denied`: the deny
 * rule that matched) that it must not run and nobody is asked.
 */
export type PolicyVerdict =
  | { allowed: true; because: "all" | "trusted-server" | "listed" | "rule" | "read-only" | "session" | "server-session" }
  | { allowed: false; denied?: string };

export class ApprovalPolicy {
  readonly mode: ApprovalMode;
  private readonly servers: Readonly<Record<string, ServerApprovalConfig>>;
  // Tools the person allowed for the rest of the session, by server and definition (toolIdentity).
  private readonly sessionAllowed = new Set<string>();
  // Servers whose every tool the person allowed for the rest of the session.
  private readonly serversAllowed = new Set<string>();
  // Servers the person let sample for the rest of the session.
  private readonly samplingAllowed = new Set<string>();
  private readonly allowRules: readonly RegExp[];
  private readonly denyRules: readonly { pattern: string; test: RegExp }[];

  constructor(options: ApprovalPolicyOptions = {}) {
    this.mode = options.mode ?? "ask";
    this.servers = options.servers ?? {};
    this.allowRules = (options.rules?.allow ?? []).map(namePattern);
    this.denyRules = (options.rules?.deny ?? []).map((pattern) => ({ pattern, test: namePattern(pattern) }));
  }

  verdict(tool: HubTool): PolicyVerdict {
    const names = [tool.name, `${tool.server}__${tool.originalName}`];
    const denied = this.denyRules.find((rule) => names.some((name) => rule.test.test(name)));
    if (denied) return { allowed: false, denied: denied.pattern };
    if (this.mode === "all") return { allowed: true, because: "all" };
    const server = Object.hasOwn(this.servers, tool.server) ? this.servers[tool.server] : undefined;
    if (server?.trust === true) return { allowed: true, because: "trusted-server" };
    const listed = [...(server?.autoApprove ?? []), ...(server?.alwaysAllow ?? [])];
    if (listed.includes(tool.originalName) || listed.includes(tool.name)) return { allowed: true, because: "listed" };
    if (this.allowRules.some((rule) => names.some((name) => rule.test(name)))) return { allowed: true, because: "rule" };
    if (this.mode === "readonly" && tool.annotations?.readOnlyHint === true) return { allowed: true, because: "read-only" };
    if (this.sessionAllowed.has(toolIdentity(tool))) return { allowed: true, because: "session" };
    if (this.serversAllowed.has(tool.server)) return { allowed: true, because: "server-session" };
    return { allowed: false };
  }

  /** Allows this tool as it is defined now, on its server: another server's tool of that name, or a new definition, asks again. */
  allowForSession(tool: HubTool): void {
    this.sessionAllowed.add(toolIdentity(tool));
  }

  /** Allows every tool of this server, as it is now or becomes, for the rest of the session; deny rules still hold. */
  allowServerForSession(server: string): void {
    this.serversAllowed.add(server);
  }

  /** Why a tool the policy does not allow is asked about, in words for the person deciding. */
  whyAsked(tool: HubTool): string {
    const reasons: string[] = [];
    if (tool.annotations?.destructiveHint === true) reasons.push("the server says it may change or delete data");
    else if (tool.annotations?.readOnlyHint !== true) reasons.push("the server does not mark it read-only");
    else if (this.mode === "ask") reasons.push("read-only tools are asked about too (approval mode ask)");
    reasons.push("no allow rule, trust or autoApprove covers it");
    return reasons.join("; ");
  }

  /**
   * Whether a server's resources and prompts may be read where nobody can be asked (the hub's
   * MCP endpoint): with mode `all`, with `readonly` (reading is all they do), or from a trusted server.
   */
  readsUnasked(server: string): boolean {
    return this.mode !== "ask" || (Object.hasOwn(this.servers, server) && this.servers[server]?.trust === true);
  }

  /** Sampling runs unasked only with mode `all`, for a trusted server, or one allowed for the session. */
  samplingVerdict(server: string): PolicyVerdict {
    if (this.mode === "all") return { allowed: true, because: "all" };
    if (Object.hasOwn(this.servers, server) && this.servers[server]?.trust === true) return { allowed: true, because: "trusted-server" };
    if (this.samplingAllowed.has(server)) return { allowed: true, because: "session" };
    return { allowed: false };
  }

  allowSamplingForSession(server: string): void {
    this.samplingAllowed.add(server);
  }
}

/** A rule's pattern as a whole-name match: `*` is any run of characters, everything else literal. */
function namePattern(pattern: string): RegExp {
  return new RegExp(`^${pattern.split("*").map((part) => part.replace(/[\\^$.|?+()[\]{}]/g, "\\$&")).join(".*")}$`, "s");
}

/**
 * What an approval binds to: the server, the tool's own name and a hash of what the person
 * was shown and the model reads (description, input schema, annotations). The exposed name
 * is left out: it follows the registry (alpha's `sync` may become beta's), the tool does not.
 */
export function toolIdentity(tool: HubTool): string {
  const definition = canonicalJson([tool.originalName, tool.description ?? null, tool.inputSchema, tool.annotations ?? null]);
  return `${tool.server}\u0000${tool.originalName}\u0000${createHash("sha256").update(definition).digest("base64url")}`;
}

/**
 * An opaque id of what a person was shown and decides on, for a page to send back with its
 * answer: whoever holds the question can then answer only what was shown, never what it
 * became since (another definition, other arguments, another server).
 */
export function shownFingerprint(shown: unknown): string {
  return createHash("sha256").update(canonicalJson(shown)).digest("hex").slice(0, 32);
}

/** What one tool call's approval binds to: the server, the tool and its definition (toolIdentity), and the arguments. */
export function callFingerprint(tool: HubTool, args: Record<string, unknown>): string {
  return shownFingerprint(["tool", toolIdentity(tool), args]);
}

/** JSON with object keys sorted, so that the same definition hashes the same however the server orders it. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** How the agent gets a decision for one call: the policy, then (when it says ask) the person, if there is one. */
export interface Approval {
  policy: ApprovalPolicy;
  /** Absent where nobody can be asked (no terminal, a script): what the policy does not allow is refused. */
  ask?: ApproveCallback;
  /** Asks about a server's sampling request; absent, what the policy does not allow is refused. */
  askSampling?: ApproveSamplingCallback;
}

/** `rule`: the deny rule that refused the call (nobody was asked). */
export type ApprovalOutcome = { run: true } | { run: false; asked: boolean; reason?: string; rule?: string };

// The question each approval is asking now: the next waits for its answer (see decideApproval).
const asking = new WeakMap<Approval, Promise<unknown>>();

/**
 * The policy's verdict (or a PreToolUse hook's `hook`), else the person's answer. Questions go one at a time, in the order the
 * calls came: a front end shows one dialog, and a call waiting behind another is decided again
 * once that one is answered, so "allow for this session" covers it when it is the same
 * server's tool with the same definition (toolIdentity), and only then.
 */
export async function decideApproval(approval: Approval, request: ToolApprovalRequest, signal: AbortSignal | undefined, hook?: "allow" | "ask"): Promise<ApprovalOutcome> {
  const verdict = approval.policy.verdict(request.tool);
  if (!verdict.allowed && verdict.denied !== undefined) return { run: false, asked: false, rule: verdict.denied };
  // A PreToolUse hook of the config may allow without asking, or ask where the policy would not; deny rules still hold.
  if (hook === "allow" || (verdict.allowed && hook !== "ask")) return { run: true };
  const ask = approval.ask;
  if (!ask) return { run: false, asked: false };
  const { policy } = approval;
  const decided = (asking.get(approval) ?? Promise.resolve()).then(() =>
    policy.verdict(request.tool).allowed && hook !== "ask"
      ? { run: true as const }
      : settle(
          () => ask({ ...request, why: policy.whyAsked(request.tool) }, signal),
          () => policy.allowForSession(request.tool),
          () => policy.allowServerForSession(request.tool.server),
        ),
  );
  asking.set(approval, decided.catch(() => undefined));
  return decided;
}

// Sampling questions still waiting for the person, per policy and server: "always for this server" withdraws them.
const waitingSampling = new WeakMap<ApprovalPolicy, Map<string, Set<AbortController>>>();

/**
 * The same decision for a sampling request. Its questions are asked side by side (a front end queues
 * them); once the person allows a server for the session, the questions of that server still waiting
 * are withdrawn (their ask aborted) and answered by that rule at once.
 */
export async function decideSampling(approval: Approval, request: SamplingApprovalRequest, signal: AbortSignal | undefined): Promise<ApprovalOutcome> {
  const { policy } = approval;
  if (policy.samplingVerdict(request.server).allowed) return { run: true };
  const ask = approval.askSampling;
  if (!ask) return { run: false, asked: false };
  const byServer = waitingSampling.get(policy) ?? new Map<string, Set<AbortController>>();
  waitingSampling.set(policy, byServer);
  const waiting = byServer.get(request.server) ?? new Set<AbortController>();
  byServer.set(request.server, waiting);
  const withdrawn = new AbortController();
  waiting.add(withdrawn);
  try {
    const outcome = await settle(
      () => ask(request, signal ? AbortSignal.any([signal, withdrawn.signal]) : withdrawn.signal),
      () => {
        policy.allowSamplingForSession(request.server);
        for (const other of waiting) other.abort();
      },
    );
    return withdrawn.signal.aborted && !signal?.aborted ? { run: true } : outcome;
  } finally {
    waiting.delete(withdrawn);
    if (waiting.size === 0 && byServer.get(request.server) === waiting) byServer.delete(request.server);
  }
}

async function settle(ask: (() => Promise<ApprovalAnswer>) | undefined, allowForSession: () => void, allowServer = allowForSession): Promise<ApprovalOutcome> {
  if (!ask) return { run: false, asked: false };
  let answer: ApprovalAnswer;
  try {
    answer = await ask();
  } catch {
    answer = { decision: "deny" };
  }
  if (answer.decision === "allow-session") allowForSession();
  if (answer.decision === "allow-server") allowServer();
  if (answer.decision !== "deny") return { run: true };
  return answer.reason === undefined || answer.reason.trim() === "" ? { run: false, asked: true } : { run: false, asked: true, reason: answer.reason.trim() };
}

/** What the model reads when a call was not run for want of approval. */
export function refusalMessage(toolName: string, outcome: Extract<ApprovalOutcome, { run: false }>): string {
  if (outcome.rule !== undefined) {
    return `Not run: "${toolName}" is denied by the rule "${outcome.rule}" in the configuration. Do not retry it; continue without it.`;
  }
  if (!outcome.asked) {
    return `Not run: "${toolName}" needs the user's approval, and no one was there to give it. Do not retry it; answer with what you have, or tell the user what you would need to run.`;
  }
  const because = outcome.reason ? ` The user said: ${outcome.reason}` : "";
  return `Not run: the user denied "${toolName}".${because} Do not retry it unless the user asks; continue without it.`;
}
