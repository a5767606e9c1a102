import type { ContentPart, ToolCall } from "../llm/types.js";
import { untilAborted } from "../mcp/time-limit.js";
import type { HubTool } from "../mcp/types.js";
import { decideApproval, refusalMessage, toolIdentity, type Approval } from "./approval.js";
import type { AgentEvent, ToolCallRecord, ToolOutcome } from "./events.js";
import type { Hooks } from "./hooks.js";
import { validateToolArguments, type ParsedToolCall } from "./tool-arguments.js";
import type { ToolCatalog, ToolHost } from "./tool-host.js";
import { resultBody, summarizeContent, toModelContent } from "./tool-result.js";

/** A call the agent decided not to run: why, for the record and for the model. */
export interface SkippedCall {
  outcome: "repeated" | "over-limit";
  reason: string;
}

export interface RunToolsContext {
  host: ToolHost;
  catalog: ToolCatalog;
  signal: AbortSignal | undefined;
  toolTimeoutMs: number | undefined;
  /** Decides, call by call, whether a tool may run. */
  approval: Approval;
  emit: (event: AgentEvent) => void;
  /** Calls the agent decided not to run (the repeat guard, the turn's call limit), with the reason the model gets. */
  skipped: ReadonlyMap<ToolCall, SkippedCall>;
  /** The session's hooks: PreToolUse before the approval, PostToolUse after the call. */
  hooks?: Hooks;
}

/** A tool that keeps changing under its approval is given up after this many decisions. */
const MAX_DECISIONS = 3;

export const CANCELLED_RESULT = "Cancelled: the user stopped this turn before the tool finished.";

/** Runs one reply's tool calls concurrently; records come back in the model's order. */
export function runToolCalls(calls: readonly ParsedToolCall[], context: RunToolsContext): Promise<ToolCallRecord[]> {
  return Promise.all(calls.map((call) => runOne(call, context)));
}

async function runOne({ call, args: parsedArgs }: ParsedToolCall, context: RunToolsContext): Promise<ToolCallRecord> {
  let parsed = parsedArgs;
  // The call's duration is the tool's: it starts again once the call is approved, so time spent asking is not counted.
  let started = performance.now();
  context.emit({ type: "tool-call-started", id: call.id, name: call.name, arguments: parsed.ok ? parsed.arguments : call.arguments });

  // `shown` is what a display summarises: the tool's own words, without what marks them for the model.
  const finish = (record: Omit<ToolCallRecord, "id" | "name" | "rawArguments" | "durationMs">, shown = record.content): ToolCallRecord => {
    const full: ToolCallRecord = { id: call.id, name: call.name, rawArguments: call.arguments, ...record, durationMs: performance.now() - started };
    context.emit({
      type: "tool-call-finished",
      id: call.id,
      name: call.name,
      summary: summarizeContent(shown),
      isError: full.isError,
      durationMs: full.durationMs,
      outcome: full.outcome,
      ...(full.result ? { result: full.result } : {}),
    });
    return full;
  };
  const refuse = (outcome: ToolOutcome, content: string, args?: Record<string, unknown>): ToolCallRecord =>
    finish(args === undefined ? { outcome, isError: true, content } : { outcome, isError: true, content, arguments: args });

  const skip = context.skipped.get(call);
  if (skip !== undefined) return refuse(skip.outcome, skip.reason, parsed.ok ? parsed.arguments : undefined);

  let tool = context.catalog.get(call.name);
  if (!tool) {
    const names = context.catalog.tools.map((t) => t.name);
    return refuse(
      "unknown-tool",
      names.length === 0
        ? `Unknown tool "${call.name}": no tools are available. Answer without tools.`
        : `Unknown tool "${call.name}". The available tools are: ${names.join(", ")}. Call one of these by its exact name.`,
    );
  }
  if (!parsed.ok) return refuse(parsed.outcome, parsed.message);
  const { hooks } = context;
  // PreToolUse may deny, allow without asking, ask anyway, or change the arguments (checked against the schema below, like the model's).
  let hookPermission: "allow" | "ask" | undefined;
  if (hooks?.has("PreToolUse")) {
    const pre = await hooks.run("PreToolUse", { tool_name: tool.name, tool_input: parsed.arguments, tool_use_id: call.id }, tool.name, context.signal);
    for (const line of pre.problems) context.emit({ type: "notice", code: "hook", message: line });
    if (pre.block !== undefined) return refuse("denied", `Not run: a hook denied "${tool.name}": ${pre.block}`, parsed.arguments);
    if (pre.updatedInput) parsed = { ok: true, arguments: pre.updatedInput };
    hookPermission = pre.permission;
  }
  // The hub routes by name at the call: if the registry changed since the model saw the list, or
  // while the person decided, that name may now be another server's tool or a new definition.
  // What would run now is decided about (asked about) again, a few times at most.
  for (let decisions = 1; ; decisions++) {
    const checked = validateToolArguments(tool.name, tool.inputSchema, parsed.arguments);
    if (!checked.ok) return refuse(checked.outcome, checked.message, parsed.arguments);
    if (context.signal?.aborted) return refuse("cancelled", CANCELLED_RESULT, parsed.arguments);
    const subject = context.host.approvalSubject?.(tool, parsed.arguments) ?? tool;
    const approval = await decideApproval(context.approval, { tool: subject, arguments: parsed.arguments, callId: call.id }, context.signal, hookPermission);
    if (context.signal?.aborted) return refuse("cancelled", CANCELLED_RESULT, parsed.arguments);
    if (!approval.run) return refuse(approval.asked ? "denied" : "not-approved", refusalMessage(tool.name, approval), parsed.arguments);
    const decided: HubTool = tool;
    const current = context.host.tools().find((candidate) => candidate.name === decided.name);
    // The same object while the registry is unchanged: the hashes are only for a rebuilt one.
    if (current === tool || (current && toolIdentity(current) === toolIdentity(tool))) break;
    if (!current || decisions === MAX_DECISIONS) {
      return refuse("call-failed", `Not run: "${tool.name}" changed (its server or its definition) before it could run. Call it again if it is still the tool you need.`, parsed.arguments);
    }
    tool = current;
  }
  started = performance.now();
  try {
    const pending = context.host.callTool(tool.name, parsed.arguments, {
      ...(context.signal ? { signal: context.signal } : {}),
      ...(context.toolTimeoutMs ? { timeoutMs: context.toolTimeoutMs } : {}),
      onProgress: (progress) => context.emit({ type: "tool-progress", id: call.id, name: call.name, progress }),
    });
    const result = context.signal ? await untilAborted(pending, context.signal) : await pending;
    const isError = result.isError === true;
    const body = resultBody(result);
    let content = toModelContent(result, body);
    if (hooks?.has("PostToolUse")) {
      const post = await hooks.run("PostToolUse", { tool_name: tool.name, tool_input: parsed.arguments, tool_use_id: call.id, tool_response: result }, tool.name, context.signal);
      for (const line of post.problems) context.emit({ type: "notice", code: "hook", message: line });
      const added = [post.block, post.context].filter((text): text is string => text !== undefined).join("\n\n");
      if (added !== "") content = withNote(content, `[hook] ${added}`);
    }
    return finish({ outcome: isError ? "tool-error" : "ok", isError, result, content, arguments: parsed.arguments }, body);
  } catch (error) {
    if (context.signal?.aborted) return refuse("cancelled", CANCELLED_RESULT, parsed.arguments);
    const reason = error instanceof Error ? error.message : String(error);
    return refuse("call-failed", `Error: calling "${call.name}" failed: ${reason}`, parsed.arguments);
  }
}

/** The tool's content with a note after it, for the model to read. */
function withNote(content: string | ContentPart[], note: string): string | ContentPart[] {
  return typeof content === "string" ? `${content}\n\n${note}` : [...content, { type: "text", text: note }];
}
