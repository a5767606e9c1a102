import type { AgentSession } from "../chat/session.js";
import { launchBrowser } from "../open-browser.js";
import { oneLine } from "../render/one-line.js";
import { cleanTerminalText } from "../render/terminal-text.js";
import type { ChatItemBody } from "./chat-items.js";
import type { ServerQuestions } from "./server-questions.js";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Puts the chat's dialogs where servers' questions go: sampling approval, forms and URLs
 * are asked in them, a URL is opened only when the person says so, and a server's "the page
 * flow is complete" reaches the dialog. Returns the undo and `afterTurn`, which offers the
 * browser login to each server that asked for one during the turn.
 */
export function connectQuestions(session: AgentSession, questions: ServerQuestions, show: (item: ChatItemBody) => void, env: Env) {
  session.prompts.dialogs = questions;
  questions.openUrl = (url) => launchBrowser(url, env);
  const unwatch = session.hub.on((event) => {
    if (event.type === "elicitation-complete") questions.completed(event.server, event.elicitationId);
  });
  // Servers whose login is being offered or under way: one offer at a time per server.
  const offered = new Set<string>();
  const offerLogin = async (server: string): Promise<void> => {
    offered.add(server);
    try {
      if (!(await questions.offerLogin(server))) {
        show({ kind: "notice", tone: "info", text: `server "${oneLine(server)}" stays logged out; toolbridge auth login ${oneLine(server)} logs in later` });
        return;
      }
      await session.hub.login(server, (url) => {
        show({ kind: "notice", tone: "info", text: `log in to server "${oneLine(server)}" in your browser; if none opens, visit ${oneLine(url.href)}` });
        launchBrowser(url.href, env);
      });
      show({ kind: "server", ok: true, text: `${oneLine(server)}: logged in` });
    } catch (error) {
      show({ kind: "notice", tone: "error", text: `could not log in to server "${oneLine(server)}": ${cleanTerminalText(error instanceof Error ? error.message : String(error))}` });
    } finally {
      offered.delete(server);
    }
  };
  return {
    afterTurn(): void {
      for (const state of session.hub.servers()) if (state.needsLogin && !offered.has(state.name)) void offerLogin(state.name);
    },
    disconnect(): void {
      unwatch();
      session.prompts.dialogs = undefined;
    },
  };
}
