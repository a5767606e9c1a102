import picocolors from "picocolors";
import { describe, expect, it } from "vitest";
import type { AgentSession } from "../../../src/cli/chat/session.js";
import { ChatController } from "../../../src/cli/ui/chat-controller.js";
import type { HubEvent, ServerState } from "../../../src/mcp/types.js";

/** A chat over a hub that only reports server states, as Hub.servers() and its server-status events do. */
function chatOverStates() {
  let current: ServerState = { name: "fs", transport: "stdio", status: "connected", toolCount: 3, resourceCount: 0, promptCount: 0, restarts: 0 };
  const listeners = new Set<(event: HubEvent) => void>();
  const hub = {
    servers: () => [{ ...current }],
    on: (listener: (event: HubEvent) => void) => (listeners.add(listener), () => listeners.delete(listener)),
  };
  const controller = new ChatController({ hub } as unknown as AgentSession, picocolors.createColors(false), () => 80);
  controller.watchServers();
  return {
    set(patch: Partial<ServerState>) {
      current = { ...current, ...patch };
      for (const listener of listeners) listener({ type: "server-status", state: { ...current } });
    },
    lines: () => controller.getState().items.filter((item) => item.kind === "server").map((item) => (item as { text: string }).text),
  };
}

describe("the chat's lines for a server that drops", () => {
  it("says nothing while it restarts, then one line when it is back", () => {
    const chat = chatOverStates();
    expect(chat.lines()).toEqual(["fs: 3 tools"]);
    chat.set({ status: "failed", error: "the server closed the connection (the process exited)", dropped: "exit 1", restarting: true });
    chat.set({ status: "connecting", error: undefined });
    chat.set({ status: "failed", error: "refusing to start" });
    chat.set({ status: "connecting", restarts: 2 });
    chat.set({ status: "connected", restarting: undefined });
    expect(chat.lines()).toEqual(["fs: 3 tools", "server fs restarted (exit 1), tools back"]);
  });

  it("says in one line that a server is left down after its tries", () => {
    const chat = chatOverStates();
    chat.set({ status: "failed", error: "the process exited", dropped: "SIGKILL", restarting: true });
    chat.set({ status: "connecting" });
    chat.set({ status: "failed", error: "refusing to start" });
    chat.set({ error: "refusing to start (gave up after 1 try to restart it)", restarting: undefined });
    expect(chat.lines()).toEqual(["fs: 3 tools", "server fs is down (SIGKILL): refusing to start (gave up after 1 try to restart it)"]);
  });

  it("says a remote server whose connection dropped was reconnected, in the same one line", () => {
    const chat = chatOverStates();
    chat.set({ transport: "streamable-http", status: "failed", error: "the connection dropped (the session ended (HTTP 404))", dropped: "the session ended (HTTP 404)", restarting: true });
    chat.set({ status: "connecting", error: undefined });
    chat.set({ status: "connected", restarts: 1, restarting: undefined });
    expect(chat.lines()).toEqual(["fs: 3 tools", "server fs reconnected (the session ended (HTTP 404)), tools back"]);
  });
});
