import { TranscriptError } from "../agent/errors.js";
import { ConfigError } from "../config/errors.js";
import { redactSecrets } from "../config/redact.js";
import { LlmError } from "../llm/errors.js";
import { HubError } from "../mcp/errors.js";
import { colorsFor } from "./render/colors.js";
import { cleanTerminalText } from "./render/terminal-text.js";

/**
 * Exit codes of every toolbridge command:
 * 0 success; 1 the work failed (a tool error, a server that failed or died, a timeout);
 * 2 the input was wrong (arguments, JSON_ARGS, the config file); 130 / 143 / 129 interrupted
 * by SIGINT / SIGTERM / SIGHUP.
 */
export const ExitCode = { ok: 0, failure: 1, usage: 2, interrupted: 130, terminated: 143, hangup: 129 } as const;

/** A mistake in what the user typed, found by the CLI itself. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** A failure already explained to the user (e.g. a tool result with isError): only the exit code is left to set. */
export class ReportedFailure extends Error {
  override readonly name = "ReportedFailure";
  constructor(readonly exitCode: number = ExitCode.failure) {
    super("reported");
  }
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof ReportedFailure) return error.exitCode;
  if (error instanceof UsageError || error instanceof ConfigError) return ExitCode.usage;
  if (error instanceof LlmError && (error.code === "config" || error.code === "runtime-missing")) return ExitCode.usage;
  return ExitCode.failure;
}

/** The one line shown for an error; its first line only, as causes can be multi-line. */
export function errorLine(error: unknown): string {
  const message = redactSecrets(error instanceof Error ? error.message : String(error));
  const first = message.split(/\r?\n/).find((line) => line.trim() !== "") ?? (error instanceof Error ? error.name : "unknown error");
  if (error instanceof HubError && error.code === "needs-login" && error.server !== undefined) {
    return `${first}: run toolbridge auth login ${error.server}`;
  }
  if (isErrorValue(error)) return first;
  // Errors nobody turned into a value: name their kind, it is the best clue there is.
  return error instanceof Error && error.name !== "Error" ? `${error.name}: ${first}` : first;
}

/** Errors made on purpose, whose message is already the one line a user should read. */
function isErrorValue(error: unknown): boolean {
  return [HubError, ConfigError, UsageError, LlmError, TranscriptError].some((kind) => error instanceof kind);
}

type Env = Readonly<Record<string, string | undefined>>;

/** Prints `toolbridge: ...` on stderr (the stack too with TOOLBRIDGE_DEBUG) and returns the exit code. */
export function reportError(error: unknown, env: Env = process.env, stderr: NodeJS.WriteStream = process.stderr): number {
  if (!(error instanceof ReportedFailure)) {
    const c = colorsFor(stderr, env);
    // Messages quote servers and models: cleaned before the terminal sees them.
    stderr.write(`${c.red("toolbridge:")} ${cleanTerminalText(errorLine(error))}\n`);
    if (env.TOOLBRIDGE_DEBUG && error instanceof Error && error.stack) stderr.write(`${c.dim(cleanTerminalText(error.stack))}\n`);
  }
  return exitCodeOf(error);
}

/** Prints one line on stderr that does not end the command (a server that failed, say). */
export function warn(message: string, env: Env = process.env, stderr: NodeJS.WriteStream = process.stderr): void {
  const c = colorsFor(stderr, env);
  stderr.write(`${c.yellow("toolbridge:")} ${cleanTerminalText(redactSecrets(message))}\n`);
}

/**
 * As warn, with a URL the user must use as it is (their own login page) after the message:
 * the message is redacted, the URL is not. `href` is a parsed URL's, so it holds no control character.
 */
export function warnWithUrl(message: string, href: string, env: Env = process.env, stderr: NodeJS.WriteStream = process.stderr): void {
  const c = colorsFor(stderr, env);
  stderr.write(`${c.yellow("toolbridge:")} ${cleanTerminalText(redactSecrets(message))} ${href}\n`);
}

/**
 * Wraps a commander action so that whatever it throws becomes one line on stderr and an
 * exit code, never a stack trace.
 */
export function action<Args extends unknown[]>(run: (...args: Args) => Promise<void>): (...args: Args) => Promise<void> {
  return async (...args: Args) => {
    try {
      await run(...args);
    } catch (error) {
      process.exitCode = reportError(error);
    }
  };
}
