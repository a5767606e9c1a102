import { createInterface } from "node:readline";
import type { ApprovalAnswer, ApproveCallback, ToolApprovalRequest } from "../agent/approval.js";
import type { Colors } from "./render/colors.js";
import { cleanTerminalText as clean } from "./render/terminal-text.js";
import { argumentLines, type LineTone } from "./ui/argument-lines.js";

export interface PromptIo {
  input: NodeJS.ReadableStream;
  /** Where the question goes: stderr, so that stdout keeps only the answer. */
  output: NodeJS.WritableStream;
  colors: Colors;
}

/** Columns assumed when the question goes to something other than a terminal. */
const DEFAULT_COLUMNS = 80;
const INDENT = "  ";

/**
 * The `ask` of the agent's approval, as a small prompt on the terminal for `run`:
 * allow once, allow this tool (or every tool of its server) for the session, or deny with an optional reason for the
 * model. The agent asks one question at a time (decideApproval).
 * The arguments are shown whole before the question, laid out as the chat's dialog lays them out
 * (edits of a file as a diff, multi-line strings as their lines): `run` is line by line, so they
 * stay in the terminal's scrollback (or the log stderr goes to) to be read, where a pager would
 * take the screen and hide them once closed. Arguments too long to review can only be denied.
 * Ctrl-C during a question is the same interrupt as anywhere else in `run`.
 */
export function terminalApproval(io: PromptIo): ApproveCallback {
  return (request, signal) => askOnce(io, request, signal);
}

async function askOnce(io: PromptIo, request: ToolApprovalRequest, signal: AbortSignal | undefined): Promise<ApprovalAnswer> {
  signal?.throwIfAborted();
  const { colors: c } = io;
  const tool = request.tool;
  const shown = argumentLines(request.arguments, columnsOf(io.output) - INDENT.length);
  const hints = [tool.annotations?.destructiveHint === true ? "destructive" : "", tool.annotations?.readOnlyHint === true ? "read-only" : ""].filter(Boolean);
  io.output.write(
    `${c.yellow("?")} run ${c.bold(clean(tool.name))} ${c.dim(`(server ${clean(tool.server)}${hints.length > 0 ? `, ${hints.join(", ")}` : ""})`)}\n`,
  );
  if (request.why !== undefined) io.output.write(`  ${c.dim(`asked because ${clean(request.why)}`)}\n`);
  const tint = (line: string, tone: LineTone): string => (tone === "removed" ? c.red(line) : tone === "added" ? c.green(line) : line);
  io.output.write(shown.lines.map((line, index) => `${INDENT}${tint(line, shown.tones[index])}\n`).join(""));
  const rl = createInterface({ input: io.input, output: io.output, terminal: true });
  // The terminal is in raw mode while asking: Ctrl-C reaches us as a key, passed on as the signal it would have been.
  rl.on("SIGINT", () => process.kill(process.pid, "SIGINT"));
  const question = (text: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const onAbort = () => reject(signal?.reason ?? new Error("cancelled"));
      signal?.addEventListener("abort", onAbort, { once: true });
      rl.question(text, (answer) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(answer.trim());
      });
    });
  const denyAsking = async (): Promise<ApprovalAnswer> => {
    const reason = await question(`  ${c.dim("reason for the model (Enter for none):")} `);
    return reason === "" ? { decision: "deny" } : { decision: "deny", reason };
  };
  try {
    if (!shown.whole) {
      io.output.write(`  ${c.yellow("These arguments are too long to review here; they can only be denied.")}\n`);
      return await denyAsking();
    }
    for (;;) {
      const answer = (await question(`  ${c.bold("y")} once, ${c.bold("a")} always (this session), ${c.bold("s")} every tool of ${clean(tool.server)} (this session), ${c.bold("n")} deny [y/a/s/n] `)).toLowerCase();
      if (answer === "y" || answer === "yes") return { decision: "allow-once" };
      if (answer === "a" || answer === "always") return { decision: "allow-session" };
      if (answer === "s" || answer === "server") return { decision: "allow-server" };
      if (answer === "n" || answer === "no" || answer === "") return await denyAsking();
    }
  } finally {
    rl.close();
  }
}

function columnsOf(output: NodeJS.WritableStream): number {
  const columns = (output as { columns?: number }).columns;
  return columns !== undefined && columns > 0 ? columns : DEFAULT_COLUMNS;
}
