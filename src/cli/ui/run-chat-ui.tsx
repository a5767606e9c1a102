import { render } from "ink";
import { join } from "node:path";
import type { ApproveCallback } from "../../agent/approval.js";
import type { AgentSession } from "../chat/session.js";
import { colorsFor } from "../render/colors.js";
import { sayStopping } from "../render/startup-status.js";
import type { ResumeChoice } from "./saved-sessions.js";
import { InputHistory } from "./history.js";
import { stateDir } from "../../host/state-dir.js";
import { NO_EARLY_INPUT, StartingApp, type EarlyInput } from "./StartingApp.js";
import { UiStore } from "./ui-store.js";
import type { ChatUiIo, Env } from "./chat-ui-io.js";

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
  let released = false;
  const release = (): void => {
    if (!released) releaseTerminal(io);
    released = true;
  };
  let session: AgentSession;
  let screen: typeof import("./chat-screen.js");
  try {
    [session, screen] = await Promise.all([open(), import("./chat-screen.js")]);
  } catch (error) {
    instance.clear();
    instance.unmount();
    release();
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
    await screen.chatOn(session, instance, early.get(), { colors, history, io, connectAsk, resume, releaseTerminal: release });
  } finally {
    release();
    // Quitting while a server still starts: stopping it may take its grace periods.
    if (session.hub.servers().some((server) => server.status === "connecting")) sayStopping(io.env, io.stderr);
    await session.close();
  }
}

/**
 * Gives the terminal back the moment the chat ends, before its servers close (which can take
 * their grace periods): cooked mode, no bracketed paste, and stdin no longer read. Ink's
 * unmount leaves raw mode but keeps reading, so what the person typed for their shell
 * meanwhile was read here and lost; destroying the stream stops the read.
 */
function releaseTerminal(io: ChatUiIo): void {
  io.stdout.write(BRACKETED_PASTE_OFF);
  if (io.stdin.isTTY) io.stdin.setRawMode(false);
  io.stdin.destroy();
}

function historyFile(env: Env): string | undefined {
  try {
    return join(stateDir(env), "history");
  } catch {
    return undefined;
  }
}

