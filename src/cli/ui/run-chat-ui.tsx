import { render, type Instance } from "ink";
import { join } from "node:path";
import type { ApproveCallback } from "../../agent/approval.js";
import { complete } from "../chat/completion.js";
import { sessionCompletionSources } from "../chat/completion-sources.js";
import type { AgentSession } from "../chat/session.js";
import { loadHighlighter } from "../render/code-highlight.js";
import { colorsFor, type Colors } from "../render/colors.js";
import { configSource } from "../render/config-source.js";
import { cleanTerminalText } from "../render/terminal-text.js";
import { ChatApp } from "./ChatApp.js";
import { ChatController } from "./chat-controller.js";
import { connectQuestions } from "./chat-questions.js";
import { InputHistory } from "./history.js";
import { SavedSessions } from "./saved-sessions.js";
import { renderConversation } from "../render/transcript-view.js";
import { stateDir } from "./state-dir.js";
import { NO_EARLY_INPUT, StartingApp, type EarlyInput } from "./StartingApp.js";
import { UiStore } from "./ui-store.js";

type Env = Readonly<Record<string, string | undefined>>;

export interface ChatUiIo {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: Env;
}

const BRACKETED_PASTE_ON = "\x1b[?2004h";
const BRACKETED_PASTE_OFF = "\x1b[?2004l";

/**
 * The chat on a terminal, drawn with Ink. The input box opens at once; `open` then starts the
 * session (config, servers, the model server's model list) while the user may already type.
 * `connectAsk` receives the approval dialog, which the session's agent calls before a tool
 * the policy does not allow. The session is closed when the chat ends.
 */
export async function runChatUi(open: () => Promise<AgentSession>, io: ChatUiIo, connectAsk: (ask: ApproveCallback) => void, resume: ResumeChoice = {}): Promise<void> {
  const colors = colorsFor(io.stdout, io.env);
  const history = InputHistory.load(historyFile(io.env));
  const early = new UiStore<EarlyInput>(NO_EARLY_INPUT);
  io.stdout.write(BRACKETED_PASTE_ON);
  // Raw mode at once, before the first frame: a key typed meanwhile is then read as typed
  // (in cooked mode the terminal would turn its Enter into a line feed, a new line here).
  io.stdin.setRawMode(true);
  const instance = render(<StartingApp input={early} history={history} />, {
    stdin: io.stdin,
    stdout: io.stdout,
    stderr: io.stderr,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  let session: AgentSession;
  try {
    session = await open();
  } catch (error) {
    instance.clear();
    instance.unmount();
    io.stdout.write(BRACKETED_PASTE_OFF);
    // Nothing to report to someone who has already quit.
    if (early.get().quit) return;
    throw error;
  }
  try {
    if (early.get().quit) {
      instance.clear();
      instance.unmount();
      return;
    }
    await chatOn(session, instance, early.get(), { colors, history, io, connectAsk, resume });
  } finally {
    io.stdout.write(BRACKETED_PASTE_OFF);
    await session.close();
  }
}

interface ChatScreen {
  colors: Colors;
  history: InputHistory;
  io: ChatUiIo;
  connectAsk: (ask: ApproveCallback) => void;
  resume: ResumeChoice;
}

/** The chat proper, once the session is open: replaces the starting screen, sends what was typed ahead, runs until the user quits. */
async function chatOn(session: AgentSession, instance: Instance, early: EarlyInput, { colors, history, io, connectAsk, resume }: ChatScreen): Promise<void> {
  const sessions = savedSessions(io.env);
  let id = SavedSessions.newId();
  const autosave = (): void => {
    const { agent } = session;
    if (!sessions || agent.messages.length === 0) return;
    try {
      sessions.save(id, agent.messages, { provider: agent.model.provider, model: agent.model.modelId, ...(agent.systemPrompt ? { systemPrompt: agent.systemPrompt } : {}) });
    } catch {
      // Not saved; the conversation goes on.
    }
  };
  // Set below, once the controller exists: after each turn, a server that wants a login is offered one.
  let afterTurn = (): void => undefined;
  const controller = new ChatController(session, colors, () => io.stdout.columns ?? 80, () => {
    autosave();
    afterTurn();
  });
  connectAsk(controller.ask);
  const questions = connectQuestions(session, controller.questions, (item) => controller.show(item), io.env);
  afterTurn = questions.afterTurn;
  controller.show({ kind: "banner", ...banner(session) });
  const unwatch = controller.watchServers();
  const sources = sessionCompletionSources(session);
  const completer = (text: string, cursor: number, signal: AbortSignal) => complete(text, cursor, sources, signal);
  instance.rerender(<ChatApp controller={controller} history={history} colors={colors} initialPrompt={early.prompt} complete={completer} />);
  // The code highlighter's grammars load after the first frame, so the prompt never waits for them.
  void loadHighlighter();
  const resumed = sessions ? await pickSession(sessions, controller, resume) : undefined;
  if (resumed) {
    try {
      const transcript = sessions?.load(resumed);
      if (transcript) {
        session.agent.replaceMessages(transcript.messages);
        id = resumed;
        controller.show({ kind: "output", text: renderConversation(transcript.messages, colors) });
        controller.show({ kind: "notice", tone: "info", text: `resumed ${resumed}: ${transcript.messages.length} messages` });
      }
    } catch (error) {
      controller.show({ kind: "notice", tone: "error", text: cleanTerminalText(error instanceof Error ? error.message : String(error)) });
    }
  }
  for (const text of early.queued) controller.submit(text);
  try {
    await instance.waitUntilExit();
  } finally {
    unwatch();
    questions.disconnect();
  }
}

/** `chat --continue` (the last conversation) or `--resume [ID]` (that one, or a picker). */
export interface ResumeChoice {
  continueLast?: boolean;
  resume?: string | true;
}

async function pickSession(sessions: SavedSessions, controller: ChatController, choice: ResumeChoice): Promise<string | undefined> {
  if (typeof choice.resume === "string") return choice.resume;
  if (!choice.continueLast && choice.resume !== true) return undefined;
  const list = sessions.list();
  if (list.length === 0) {
    controller.show({ kind: "notice", tone: "info", text: "no saved conversation yet; starting a new one" });
    return undefined;
  }
  if (choice.continueLast) return list[0]?.id;
  const index = await controller.choose(
    "Resume which conversation?",
    list.map((s) => `${s.modifiedAt.toLocaleString()}  ${cleanTerminalText(s.title)}  (${s.messages} messages)`),
  );
  return index === undefined ? undefined : list[index]?.id;
}

function savedSessions(env: Env): SavedSessions | undefined {
  try {
    return new SavedSessions(join(stateDir(env), "sessions"));
  } catch {
    return undefined;
  }
}

function historyFile(env: Env): string | undefined {
  try {
    return join(stateDir(env), "history");
  } catch {
    return undefined;
  }
}

function banner(session: AgentSession): { title: string; detail: string } {
  const servers = session.hub.servers().length;
  return {
    title: `toolbridge chat · ${cleanTerminalText(session.agent.model.modelId)} at ${cleanTerminalText(session.endpoint.url)}`,
    detail: `${configSource(session.configPath)} · ${servers} server${servers === 1 ? "" : "s"} · /help for commands · Esc cancels an answer · Ctrl-D quits`,
  };
}
