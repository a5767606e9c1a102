import { spawn } from "node:child_process";
import { z } from "zod";

/**
 * Hooks: shell commands run at points of a session, in the shape Claude Code uses, so its
 * hook scripts work here. Each gets one JSON object on stdin (session_id, hook_event_name,
 * cwd, and the event's own fields) and answers by its exit code (0 ok, 2 block with stderr as
 * the reason, anything else a failure that is reported and otherwise ignored) and optionally
 * a JSON object on stdout (`decision: "block"`, `reason`, `hookSpecificOutput`). Every run is
 * bounded in time and in output, and gets only the environment the host hands it.
 */
export const HOOK_EVENTS = ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

export interface HookCommand {
  type: "command";
  command: string;
  /** Seconds before the command is killed (default 60). */
  timeout?: number;
}

export interface HookMatcher {
  /** For the tool events: a regular expression over the tool's exposed name, matched whole; absent, "" or "*": every tool. */
  matcher?: string;
  hooks: readonly HookCommand[];
}

export type HooksConfig = Partial<Record<HookEvent, readonly HookMatcher[]>>;

export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
/** The most bytes a hook may print on stdout or on stderr; past it the hook is stopped. */
export const MAX_HOOK_OUTPUT_BYTES = 1024 * 1024;

export interface HooksOptions {
  config: HooksConfig;
  /** The directory hooks run in and are told about (`cwd`). */
  cwd: string;
  sessionId: string;
  /** The whole environment a hook runs with (the host chooses it: see hookEnvironment in src/host). */
  env: Readonly<Record<string, string>>;
}

/** A hook's JSON answer on stdout; unknown keys are ignored, as Claude Code does. */
const HookOutputSchema = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  decision: z.enum(["approve", "block"]).optional(),
  reason: z.string().optional(),
  systemMessage: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      permissionDecision: z.enum(["allow", "deny", "ask"]).optional(),
      permissionDecisionReason: z.string().optional(),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      additionalContext: z.string().optional(),
    })
    .optional(),
});
type HookOutput = z.infer<typeof HookOutputSchema>;

/** What one hook said. `problem`: why it failed (a line for the person); its answer is then ignored. */
interface HookRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  problem?: string;
}

/** What the hooks of one event decided, together. */
export interface HookVerdict {
  /** Block (deny the tool, refuse the prompt, keep the turn going for Stop), with the reason. */
  block?: string;
  /** PreToolUse: allow without asking, or ask even where the policy allows. */
  permission?: "allow" | "ask";
  /** PreToolUse: the arguments to run the tool with instead. */
  updatedInput?: Record<string, unknown>;
  /** Text added for the model to read. */
  context?: string;
  /** Lines for the person: hooks that failed, timed out or printed too much. */
  problems: string[];
}

export class Hooks {
  constructor(private readonly options: HooksOptions) {}

  /** Whether any hook is configured for `event` (so a caller can skip building its input). */
  has(event: HookEvent): boolean {
    return (this.options.config[event]?.length ?? 0) > 0;
  }

  /**
   * Runs the hooks of `event` that match `toolName` (every one for the events without a tool),
   * concurrently, and combines their answers: any block wins, then ask over allow; the last
   * changed input wins; contexts are joined in the config's order.
   */
  async run(event: HookEvent, fields: Record<string, unknown>, toolName?: string, signal?: AbortSignal): Promise<HookVerdict> {
    const commands = (this.options.config[event] ?? []).filter((entry) => matches(entry.matcher, toolName)).flatMap((entry) => entry.hooks);
    const verdict: HookVerdict = { problems: [] };
    if (commands.length === 0) return verdict;
    const input = JSON.stringify({ session_id: this.options.sessionId, hook_event_name: event, cwd: this.options.cwd, ...fields });
    const runs = await Promise.all(commands.map((hook) => runHook(hook, input, this.options, signal)));
    const contexts: string[] = [];
    runs.forEach((run, index) => {
      const label = `hook "${oneLine((commands[index] as HookCommand).command)}" (${event})`;
      if (run.problem !== undefined) {
        verdict.problems.push(`${label} ${run.problem}`);
        return;
      }
      if (run.exitCode === 2) {
        verdict.block ??= run.stderr.trim() || `blocked by ${label}`;
        return;
      }
      if (run.exitCode !== 0) {
        verdict.problems.push(`${label} failed with exit code ${run.exitCode}: ${oneLine(run.stderr).slice(0, 200)}`);
        return;
      }
      const output = parseOutput(run.stdout);
      if (output === undefined) {
        // Plain stdout is context where Claude Code makes it so: the prompt and the session's start.
        if ((event === "UserPromptSubmit" || event === "SessionStart") && run.stdout.trim() !== "") contexts.push(run.stdout.trim());
        return;
      }
      const specific = output.hookSpecificOutput;
      const decision = specific?.permissionDecision;
      if (output.continue === false) verdict.block ??= output.stopReason ?? `stopped by ${label}`;
      if (output.decision === "block" || decision === "deny") verdict.block ??= specific?.permissionDecisionReason ?? output.reason ?? `blocked by ${label}`;
      if (decision === "ask" || (decision === "allow" && verdict.permission === undefined)) verdict.permission = decision;
      if (specific?.updatedInput) verdict.updatedInput = specific.updatedInput;
      if (specific?.additionalContext) contexts.push(specific.additionalContext);
      // PostToolUse's "block" feeds its reason to the model: the tool already ran.
      if (event === "PostToolUse" && output.decision === "block" && output.reason) contexts.push(output.reason);
    });
    if (contexts.length > 0) verdict.context = contexts.join("\n\n");
    return verdict;
  }
}

/** Claude Code's matcher: absent, "" or "*" matches every tool; else a regular expression over the whole name. */
function matches(matcher: string | undefined, toolName: string | undefined): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*" || toolName === undefined) return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(toolName);
  } catch {
    return matcher === toolName;
  }
}

function parseOutput(stdout: string): HookOutput | undefined {
  const text = stdout.trim();
  if (!text.startsWith("{")) return undefined;
  try {
    const parsed = HookOutputSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Runs one command with `sh -c` in its own process group, the input on stdin. At the time
 * bound, past the output bound, or when `signal` aborts, the whole group is killed and the
 * run reports one line saying which bound.
 */
function runHook(hook: HookCommand, input: string, options: HooksOptions, signal: AbortSignal | undefined): Promise<HookRun> {
  const seconds = hook.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS;
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", hook.command], { cwd: options.cwd, env: { ...options.env }, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const sizes = { stdout: 0, stderr: 0 };
    let problem: string | undefined;
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const stop = (why: string): void => {
      problem ??= why;
      killGroup();
    };
    const timer = setTimeout(() => stop(`was killed after its timeout of ${seconds} s`), seconds * 1000);
    const onAbort = (): void => stop("was stopped: the turn was cancelled");
    signal?.addEventListener("abort", onAbort, { once: true });
    const collect = (name: "stdout" | "stderr", into: Buffer[]) => (chunk: Buffer) => {
      sizes[name] += chunk.length;
      if (sizes[name] > MAX_HOOK_OUTPUT_BYTES) return stop(`printed more than ${MAX_HOOK_OUTPUT_BYTES} bytes on ${name} and was stopped`);
      into.push(chunk);
    };
    child.stdout.on("data", collect("stdout", out));
    child.stderr.on("data", collect("stderr", err));
    // A hook that does not read its input closes stdin early: that is not a failure.
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
    const finish = (exitCode: number | null): void => {
      clearTimeout(timer);
      // Whatever the hook left running in the background goes with it.
      killGroup();
      signal?.removeEventListener("abort", onAbort);
      const run: HookRun = { exitCode, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") };
      resolve(problem === undefined ? run : { ...run, problem });
    };
    child.on("error", (error) => {
      problem ??= `could not start: ${error.message}`;
      finish(null);
    });
    child.on("close", (code) => finish(code));
  });
}
