import { createInterface } from "node:readline";
import { colorsFor } from "../render/colors.js";
import { oneLine } from "../render/one-line.js";
import { restartLine } from "../render/server-restart.js";
import { TurnView } from "../render/turn-view.js";
import type { ContentPart } from "../../llm/types.js";
import { cleanTerminalText } from "../render/terminal-text.js";
import { beginPromptTurn, messageInput, slashInput } from "./chat-input.js";
import { describeAttachment } from "./mentions.js";
import { openSavedSessions, SavedSessions, type ResumeChoice } from "../ui/saved-sessions.js";
import type { AgentSession } from "./session.js";
import { runSlashCommand } from "./slash-commands.js";

type Env = Readonly<Record<string, string | undefined>>;

export interface PipedChatIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: Env;
}

/**
 * Chat without a terminal: one message (or /command) per input line, answers on stdout,
 * so a conversation can be scripted. Nobody can be asked to approve a tool here, so what
 * the policy does not allow is refused (the agent tells the model, the view the user).
 * With `--continue` or `--resume ID` it goes on with that saved conversation and saves it
 * back after each turn, so a script can carry one conversation across runs.
 */
export async function runPipedChat(session: AgentSession, options: { verbose: boolean; resume?: ResumeChoice }, io: PipedChatIo): Promise<void> {
  const outColors = colorsFor(io.stdout, io.env);
  const errColors = colorsFor(io.stderr, io.env);
  const saved = options.resume ? resumeSaved(session, options.resume, io, errColors) : undefined;
  const autosave = (): void => saved?.save();
  const view = new TurnView({
    stdout: io.stdout,
    stderr: io.stderr,
    outColors,
    errColors,
    streamAnswer: true,
    showReasoning: options.verbose,
    verbose: options.verbose,
    endpoint: () => session.endpoint,
  });
  // With --verbose, what servers log (at their logLevel and above) shows as it comes; a finished URL flow always does.
  const stopServerNotes = session.hub.on((event) => {
    if (event.type === "log" && options.verbose) {
      io.stderr.write(`${errColors.dim(`[${event.server}${event.pid !== undefined ? ` pid ${event.pid}` : ""}] ${event.level}: ${oneLine(event.text)}`)}\n`);
    } else if (event.type === "server-status") {
      const line = restartLine(event.state);
      if (line) io.stderr.write(`${line.ok ? errColors.dim(line.text) : errColors.red(line.text)}\n`);
    } else if (event.type === "elicitation-complete") {
      io.stderr.write(`${errColors.dim(`server "${event.server}": the page you opened reports it is done`)}\n`);
    }
  });
  const rl = createInterface({ input: io.stdin, terminal: false });
  let turn: AbortController | undefined;
  // Ctrl-C cancels the answer being written and the chat goes on with the next line; between answers it ends the chat.
  const onInterrupt = (): void => {
    if (turn) turn.abort();
    else rl.close();
  };
  process.on("SIGINT", onInterrupt);
  try {
    for await (const line of rl) {
      const text = line.trim();
      if (text === "") continue;
      let input: string | ContentPart[] | null;
      if (text.startsWith("/")) {
        // A server's prompt is sent as the turn (its messages shown on stderr); a built-in runs.
        const slash = await slashInput(text, session, errColors).catch((error: unknown) => {
          io.stderr.write(`${errColors.red("toolbridge:")} ${cleanTerminalText(error instanceof Error ? error.message : String(error))}\n`);
          return undefined;
        });
        if (!slash) continue;
        if (slash.kind === "command") {
          const print = (out: string): void => void io.stdout.write(`${out}\n`);
          if ((await runSlashCommand(text, { session, colors: outColors, print, columns: io.stdout.columns ?? 100, ...(saved ? { newConversation: saved.renew } : {}) })) === "exit") break;
          autosave();
          continue;
        }
        io.stderr.write(`${slash.shown}\n`);
        input = beginPromptTurn(session, slash);
      } else {
        const { content, attachments } = await messageInput(text, session);
        for (const attachment of attachments) io.stderr.write(`${errColors.dim(cleanTerminalText(describeAttachment(attachment)))}\n`);
        input = content;
      }
      turn = new AbortController();
      try {
        await session.agent.send(input, {
          signal: turn.signal,
          onEvent: (event) => {
            session.usage.observe(event);
            view.handle(event);
          },
        });
      } finally {
        turn = undefined;
      }
      autosave();
    }
  } finally {
    process.off("SIGINT", onInterrupt);
    stopServerNotes();
    rl.close();
  }
}

/**
 * `--continue` / `--resume ID` without a terminal: loads that saved conversation (the last
 * one; none yet starts a new one) and returns what saves it back, and what starts a new saved
 * session when a command replaced the conversation. A missing ID is an error the caller
 * reports; there is no list to choose from here.
 */
function resumeSaved(session: AgentSession, choice: ResumeChoice, io: PipedChatIo, colors: ReturnType<typeof colorsFor>): { save: () => void; renew: () => void } {
  const sessions = openSavedSessions(io.env);
  if (!sessions) throw new Error("cannot continue a conversation: the state directory cannot be made");
  let id = typeof choice.resume === "string" ? choice.resume : sessions.list()[0]?.id;
  if (id === undefined) {
    io.stderr.write(`${colors.dim("no saved conversation yet; starting a new one")}\n`);
    id = SavedSessions.newId();
  } else {
    const transcript = sessions.load(id);
    session.agent.replaceMessages(transcript.messages);
    io.stderr.write(`${colors.dim(`resumed ${id}: ${transcript.messages.length} messages`)}\n`);
    const changes = session.resumedChanges({ ...transcript, servers: transcript.header.servers });
    if (changes) io.stderr.write(`${colors.yellow(changes)}\n`);
  }
  let saved = id;
  return { save: () => sessions.saveConversation(saved, session.agent, session.serverNames()), renew: () => void (saved = SavedSessions.newId()) };
}
