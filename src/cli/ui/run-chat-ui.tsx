import { render } from "ink";
import { join } from "node:path";
import type { ApproveCallback } from "../../agent/approval.js";
import type { AgentSession } from "../chat/session.js";
import { colorsFor } from "../render/colors.js";
import { cleanTerminalText } from "../render/terminal-text.js";
import { ChatApp } from "./ChatApp.js";
import { ChatController } from "./chat-controller.js";
import { InputHistory } from "./history.js";
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
export async function runChatUi(session: AgentSession, io: ChatUiIo, connectAsk: (ask: ApproveCallback) => void): Promise<void> {
  const colors = colorsFor(io.stdout, io.env);
  const history = InputHistory.load(historyFile(io.env));
  const controller = new ChatController(session, colors, () => io.stdout.columns ?? 80);
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
  try {
    await instance.waitUntilExit();
  } finally {
    unwatch();
    io.stdout.write(BRACKETED_PASTE_OFF);
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
