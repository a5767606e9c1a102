import type { TurnResult } from "../../agent/events.js";
import { localRuntimeDir } from "../../llm/runtime-install.js";
import { terminalApproval } from "../approval-prompt.js";
import type { AgentFlags, AgentSession, SessionOptions } from "../chat/session.js";
import { ExitCode, ReportedFailure, UsageError, warn } from "../errors.js";
import { colorsFor } from "../render/colors.js";
import { startupStatus } from "../render/startup-status.js";
import { terminalSafeJson } from "../render/terminal-text.js";
import { TurnView } from "../render/turn-view.js";
import { PROMPT_FROM_STDIN, promptWithInput, readPipedInput } from "../run/piped-input.js";
import { runtimeOffer } from "../runtime-offer.js";
import { StreamJsonWriter } from "../run/stream-json.js";
import { PersonTime } from "../ui/dialog-clock.js";

export const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface RunFlags extends AgentFlags {
  /** The alias of `--output-format json`. */
  json?: boolean;
  outputFormat?: string;
}

export function outputFormat(flags: RunFlags): OutputFormat {
  if (flags.outputFormat === undefined) return flags.json ? "json" : "text";
  if (!(OUTPUT_FORMATS as readonly string[]).includes(flags.outputFormat)) {
    throw new UsageError(`--output-format: "${flags.outputFormat}" is not one of ${OUTPUT_FORMATS.join(", ")}`);
  }
  if (flags.json && flags.outputFormat !== "json") throw new UsageError(`--json is --output-format json; it cannot go with --output-format ${flags.outputFormat}`);
  return flags.outputFormat as OutputFormat;
}

/**
 * `toolbridge run`: one question (with whatever was piped in as context), the answer
 * streamed to stdout as it is written, or the whole turn as JSON, or one JSON event per
 * line. On a terminal, a tool the policy does not allow is asked about on stderr;
 * elsewhere it is refused.
 */
export async function runOnce(prompt: string | undefined, flags: RunFlags, open: (options: SessionOptions) => Promise<AgentSession>): Promise<void> {
  const { stdin, stdout, stderr, env } = process;
  const format = outputFormat(flags);
  const fromStdin = prompt === PROMPT_FROM_STDIN;
  const piped = await readPipedInput(stdin, {
    fromTerminal: fromStdin,
    ...(stdin.isTTY ? {} : { onQuiet: () => warn("waiting for stdin to end (it is not a terminal): pipe text in, or pass </dev/null when there is none", env) }),
  });
  const question = promptWithInput(prompt, piped);
  // Someone can answer only where the question can be seen and typed into; piped stdin (or stdin read to its end) means nobody.
  const canAsk = stdin.isTTY === true && stderr.isTTY === true && !fromStdin;
  const errColors = colorsFor(stderr, env);
  // Durations and the JSON leave out the time a question waited for the person.
  const personTime = new PersonTime();
  const ask = terminalApproval({ input: stdin, output: stderr, colors: errColors });
  // A signal cancels the turn, which then ends the command with 130 / 143.
  const session = await open({
    onSignal: "abort",
    onHubEvent: startupStatus(stderr, env),
    ...(canAsk
      ? {
          ask: (request, signal) => personTime.during("approval", ask(request, signal)),
          offerRuntimeInstall: runtimeOffer({ input: stdin, output: stderr, colors: errColors }, localRuntimeDir(env)),
        }
      : {}),
  });
  // Servers' questions (elicitation, sampling approval) are asked on the terminal, or declined without one.
  const { terminalPrompter } = await import("../server-questions/prompter.js");
  const prompter = terminalPrompter(stdin, stderr);
  session.prompts.current = prompter && { write: prompter.write, question: (prompt, signal) => personTime.during("question", prompter.question(prompt, signal)) };
  try {
    const view = new TurnView({
      stdout,
      stderr,
      outColors: colorsFor(stdout, env),
      errColors,
      streamAnswer: format === "text",
      showReasoning: false,
      verbose: flags.verbose === true,
      endpoint: () => session.endpoint,
    });
    const agent = session.agent;
    const events =
      format === "stream-json"
        ? new StreamJsonWriter((line) => stdout.write(line), () => agent.messages, {
            model: agent.model.modelId,
            provider: agent.model.provider,
            toolMode: agent.toolMode,
            tools: session.hub.tools().map((tool) => tool.name),
            servers: session.hub.servers(),
          })
        : undefined;
    personTime.startTurn();
    let adjusted: TurnResult | undefined;
    const sent = await agent.send(question, {
      signal: session.signal,
      onEvent: (received) => {
        const event = personTime.adjust(received);
        if (event.type === "turn-end") adjusted = event.turn;
        view.handle(event);
        events?.handle(event);
      },
    });
    const turn = adjusted ?? sent;
    if (format === "json") stdout.write(`${terminalSafeJson(turnAsJson(turn, session), 2)}\n`);
    // The turn's own events already said what went wrong; what was printed stays printed.
    if (turn.status === "aborted") throw new ReportedFailure(session.interruptedWith() ?? ExitCode.interrupted);
    if (turn.status === "failed") throw new ReportedFailure(ExitCode.failure);
  } finally {
    await session.close();
  }
}

function turnAsJson(turn: TurnResult, session: AgentSession) {
  const { messages: _messages, text, durationMs, toolCalls, ...rest } = turn;
  return {
    answer: text,
    model: session.agent.model.modelId,
    provider: session.agent.model.provider,
    toolMode: session.agent.toolMode,
    ...rest,
    // Whole milliseconds, as stream-json's duration_ms: a timer's fractions are noise to a script.
    toolCalls: toolCalls.map((call) => ({ ...call, durationMs: Math.round(call.durationMs) })),
    durationMs: Math.round(durationMs),
  };
}
