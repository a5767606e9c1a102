import type { Instance } from "ink";
import type { ApproveCallback } from "../../agent/approval.js";
import { complete } from "../chat/completion.js";
import { sessionCompletionSources } from "../chat/completion-sources.js";
import type { AgentSession } from "../chat/session.js";
import { loadHighlighter } from "../render/code-highlight.js";
import type { Colors } from "../render/colors.js";
import { configSource } from "../render/config-source.js";
import { cleanTerminalText } from "../render/terminal-text.js";
import { renderConversation } from "../render/transcript-view.js";
import { ChatApp } from "./ChatApp.js";
import { ChatController } from "./chat-controller.js";
import { connectQuestions } from "./chat-questions.js";
import type { InputHistory } from "./history.js";
import type { ChatUiIo } from "./chat-ui-io.js";
import { openSavedSessions, SavedSessions, type ResumeChoice } from "./saved-sessions.js";
import type { EarlyInput } from "./StartingApp.js";
import { sendLibraryLinesTo } from "../library-console.js";

// The chat's screen once the session is open. Loaded while the session opens, after the
// starting screen is drawn, so the input box never waits for the agent's modules.

export interface ChatScreen {
  colors: Colors;
  history: InputHistory;
  io: ChatUiIo;
  connectAsk: (ask: ApproveCallback) => void;
  resume: ResumeChoice;
  /** Gives the terminal back to the shell; called the moment the person quits. */
  releaseTerminal: () => void;
}

/** The chat proper, once the session is open: replaces the starting screen, sends what was typed ahead, runs until the user quits. */
export async function chatOn(session: AgentSession, instance: Instance, early: EarlyInput, { colors, history, io, connectAsk, resume, releaseTerminal }: ChatScreen): Promise<void> {
  const sessions = openSavedSessions(io.env);
  let id = SavedSessions.newId();
  const autosave = (): void => sessions?.saveConversation(id, session.agent, session.serverNames());
  // Set below, once the controller exists: after each turn, a server that wants a login is offered one.
  let afterTurn = (): void => undefined;
  const controller = new ChatController(
    session,
    colors,
    () => io.stdout.columns ?? 80,
    () => {
      autosave();
      afterTurn();
    },
    // /clear and /load start a new saved session; the one before stays as it was, for --resume.
    () => (id = SavedSessions.newId()),
  );
  connectAsk(controller.ask);
  const questions = connectQuestions(session, controller.questions, (item) => controller.show(item), io.env);
  afterTurn = questions.afterTurn;
  controller.show({ kind: "banner", ...banner(session) });
  const unwatch = controller.watchServers();
  const unrouteLibraryLines = sendLibraryLinesTo((text) => controller.show({ kind: "notice", tone: "warning", text }));
  // At the quit key, not after the screen's last frame: keys typed from then on are for the shell.
  const unwatchQuit = controller.subscribe(() => {
    if (controller.getState().exiting) releaseTerminal();
  });
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
        // Once every server has started or failed: before, a tool not listed yet is not gone.
        void session.ready.then(() => {
          const changes = session.resumedChanges({ ...transcript, servers: transcript.header.servers });
          if (changes) controller.show({ kind: "notice", tone: "warning", text: changes });
        });
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
    unrouteLibraryLines();
    unwatchQuit();
    questions.disconnect();
  }
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
    "↑/↓ choose · Enter opens · Esc starts a new conversation",
  );
  return index === undefined ? undefined : list[index]?.id;
}

function banner(session: AgentSession): { title: string; detail: string } {
  const servers = session.hub.servers().length;
  return {
    title: `toolbridge chat · ${cleanTerminalText(session.agent.model.modelId)} at ${cleanTerminalText(session.endpoint.url)}`,
    detail: `${configSource(session.configPath)} · ${servers} server${servers === 1 ? "" : "s"} · /help for commands · Esc cancels an answer · Ctrl-D quits`,
  };
}
