import type { Command } from "commander";
import type { AgentFlags, AgentSession, SessionOptions } from "../chat/session.js";
import { action, UsageError } from "../errors.js";
import type { RunFlags } from "./run.js";
import { ROOT_OPTION } from "./hub-commands.js";
import type { ApproveCallback } from "../../agent/approval.js";

interface ChatFlags extends AgentFlags {
  continue?: boolean;
  resume?: string | true;
}

function addAgentOptions(command: Command): Command {
  return command
    .option("--base-url <url>", "the model server's OpenAI-compatible base URL (e.g. http://127.0.0.1:8000/v1)")
    .option("--model <name>", "the model to use (default: the config's, or the first the server lists); with --provider local, a .gguf file")
    .option("--provider <name>", "openai-compatible, vllm, ollama, openai, anthropic, gemini or local")
    .option("-c, --config <file>", "the config file (default: ./toolbridge.json, then the user config)")
    .option("--tool-mode <mode>", "native, prompt (tools described in the prompt) or auto (the best mode a probe of the model found, probed on first use; prompt when native is refused)")
    .option("--max-iterations <n>", "rounds of tool calls per question before the model must answer (default 5)")
    .option("--approve <mode>", "which tools run without asking: ask (trusted servers and listed tools only), readonly (also tools marked read-only), all")
    .option(...ROOT_OPTION)
    .option("--verbose", "trace each step on stderr");
}

export function registerAgentCommands(program: Command): void {
  addAgentOptions(
    program
      .command("run")
      .description("ask the model one question; it may use the MCP tools. The answer streams to stdout, progress to stderr; piped stdin is added as context")
      .argument("[prompt]", "the question (may be left out when the text is piped in; - reads it from stdin)"),
  )
    .option("--output-format <format>", "text (the answer as it streams), json (the whole turn at the end) or stream-json (one JSON event per line)")
    .option("--json", "the same as --output-format json")
    .action(
      action(async (prompt: string | undefined, flags: RunFlags) => {
        const { runOnce } = await import("./run.js");
        await runOnce(prompt, flags, (options) => openSession(flags, options));
      }),
    );

  addAgentOptions(
    program.command("chat").description("talk with the model, which may use the MCP tools (reads one message per line when stdin is not a terminal)"),
  )
    .option("--continue", "continue the last conversation")
    .option("--resume [id]", "continue a saved conversation (without ID: choose from a list)")
    .action(action((flags: ChatFlags) => chat(flags)));
}

/** The agent, the hub and the model SDKs load when a command runs: `serve` and `--help` start without them. */
async function openSession(flags: AgentFlags, options: SessionOptions): Promise<AgentSession> {
  const { AgentSession } = await import("../chat/session.js");
  return AgentSession.open(flags, process.env, options);
}

async function chat(flags: ChatFlags): Promise<void> {
  const io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
  const interactive = io.stdin.isTTY === true && io.stdout.isTTY === true;
  // On a terminal the approval dialog answers the agent; it exists once the screen does.
  let dialog: ApproveCallback | undefined;
  const ask: ApproveCallback | undefined = interactive ? (request, signal) => (dialog ? dialog(request, signal) : Promise.resolve({ decision: "deny" })) : undefined;
  // Ctrl-C cancels an answer, not the program (the chat handles it); SIGTERM stops everything.
  const options: SessionOptions = { leaveSigint: true, background: interactive, ...(ask ? { ask } : {}) };
  if (interactive) {
    // Ink and React load only for the chat on a terminal, in React's production mode (the
    // development build checks every render and costs several times the CPU). The input box
    // opens before the session: the servers join as they connect, the model when it is found.
    process.env.NODE_ENV ??= "production";
    const { runChatUi } = await import("../ui/run-chat-ui.js");
    await runChatUi(() => openSession(flags, options), io, (connected) => (dialog = connected), {
      ...(flags.continue ? { continueLast: true } : {}),
      ...(flags.resume !== undefined ? { resume: flags.resume } : {}),
    });
    return;
  }
  if (flags.resume === true) throw new UsageError("--resume without an ID lists conversations to choose from on a terminal; with piped input, give the ID (chat --resume on a terminal shows them) or use --continue");
  const session = await openSession(flags, options);
  try {
    const { runPipedChat } = await import("../chat/piped-chat.js");
    const resume = flags.continue ? { continueLast: true } : flags.resume !== undefined ? { resume: flags.resume } : undefined;
    await runPipedChat(session, { verbose: flags.verbose === true, ...(resume ? { resume } : {}) }, io);
  } finally {
    await session.close();
  }
}
