import { render } from "ink";
import { join } from "node:path";
import type { ApproveCallback } from "../../agent/approval.js";
import type { AgentSession } from "../chat/session.js";
import { loadHighlighter } from "../render/code-highlight.js";
import { colorsFor } from "../render/colors.js";
import { cleanTerminalText } from "../render/terminal-text.js";
import { ChatApp } from "./ChatApp.js";
import { ChatController } from "./chat-controller.js";
import { InputHistory } from "./history.js";
import { SavedSessions } from "./saved-sessions.js";
import { renderConversation } from "../render/transcript-view.js";
import { stateDir } from "./state-dir.js";

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
 * The chat on a terminal, drawn with Ink. `connectAsk` receives the approval dialog, which
 * the session's agent calls before a tool the policy does not allow.
 */
export async function runChatUi(session: AgentSession, io: ChatUiIo, connectAsk: (ask: ApproveCallback) => void, resume: ResumeChoice = {}): Promise<void> {
  const colors = colorsFor(io.stdout, io.env);
  const history = InputHistory.load(historyFile(io.env));
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
  const controller = new ChatController(session, colors, () => io.stdout.columns ?? 80, autosave);
  connectAsk(controller.ask);
  controller.show({ kind: "banner", ...banner(session) });
  const unwatch = controller.watchServers();
  io.stdout.write(BRACKETED_PASTE_ON);
  // Raw mode at once, before the first frame: a key typed meanwhile is then read as typed
  // (in cooked mode the terminal would turn its Enter into a line feed, a new line here).
  io.stdin.setRawMode(true);
  const instance = render(<ChatApp controller={controller} history={history} colors={colors} />, {
    stdin: io.stdin,
    stdout: io.stdout,
    stderr: io.stderr,
    exitOnCtrlC: false,
    patchConsole: false,
  });
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
  try {
    await instance.waitUntilExit();
  } finally {
    unwatch();
    io.stdout.write(BRACKETED_PASTE_OFF);
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
    detail: `${servers} server${servers === 1 ? "" : "s"} configured · /help for commands · Esc cancels an answer · Ctrl-D quits`,
  };
}
