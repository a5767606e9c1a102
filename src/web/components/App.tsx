import { memo } from "preact/compat";
import { useEffect, useRef, useState } from "preact/hooks";
import {
  answerApproval,
  answerQuestion,
  apiKey,
  exportTranscript,
  fetchStatus,
  runTurn,
  setApiKey,
  stopTurn,
  Unauthorized,
  type ApprovalDecision,
  type ServerQuestion,
  type ServerQuestionAnswer,
  type Status,
  type TurnEvent,
} from "../api.js";
import { messageWith, type Attachment } from "../attachment.js";
import { grant, granted } from "../session-grants.js";
import { historyOf, loadConversations, MAX_KEPT_RESULT_CHARS, newConversation, saveConversations, type Conversation, type Turn } from "../store.js";
import { themeOf } from "../theme.js";
import { applyEvent, messagesOf, notesOf, startTurnView, viewOfTurn, type TurnView } from "../view.js";
import { tearDownApps, whenPageGoes } from "./AppFrame.js";
import { Composer } from "./Composer.js";
import { EmptyState } from "./EmptyState.js";
import { Header } from "./Header.js";
import { ServersPanel } from "./ServersPanel.js";
import { Sidebar } from "./Sidebar.js";
import { TurnBlock, type TurnActions } from "./TurnBlock.js";

/** The turn in progress: where it goes, its id on the gateway (for Stop), and what has arrived. */
interface Running {
  /** The stored turn's id once it ends: the same element goes on showing it, so nothing is drawn again. */
  id: string;
  conversationId: string;
  /** The turns it follows (a regenerate or an edit replaces the ones after). */
  keep: number;
  view: TurnView;
  controller: AbortController;
  gatewayId?: string;
}

const THEME = "toolbridge.theme";
const REDRAW_MS = 50;

export function App() {
  const [conversations, setConversations] = useState<Conversation[]>(loadConversations);
  const [currentId, setCurrentId] = useState<string | undefined>(() => conversations[0]?.id);
  const [status, setStatus] = useState<Status>();
  const [notice, setNotice] = useState<string>();
  const [needKey, setNeedKey] = useState(false);
  const [model, setModel] = useState<string>();
  const [panel, setPanel] = useState<"servers" | undefined>();
  const [sidebarOpen, setSidebarOpen] = useState(false);
  const [theme, setTheme] = useState<string | undefined>(() => localStorage.getItem(THEME) ?? undefined);
  const [draft, setDraft] = useState<string>();
  const [, redraw] = useState(0);
  const running = useRef<Running | undefined>(undefined);
  const frame = useRef(0);
  const lastDraw = useRef(0);
  const end = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  const conversationsRef = useRef(conversations);
  conversationsRef.current = conversations;
  const current = conversations.find((c) => c.id === currentId);
  const activeModel = current?.model ?? model ?? status?.model ?? "";

  const loadStatus = async () => {
    try {
      const next = await fetchStatus();
      setStatus(next);
      setModel((chosen) => chosen ?? next.model);
      setNotice(undefined);
    } catch (error) {
      if (error instanceof Unauthorized) setNeedKey(true);
      else setNotice(error instanceof Error ? error.message : String(error));
    }
  };
  useEffect(() => void loadStatus(), []);
  useEffect(whenPageGoes, []);
  useEffect(() => {
    if (theme) document.documentElement.dataset.theme = theme;
    else delete document.documentElement.dataset.theme;
  }, [theme]);
  // Keeps the newest text in view while it streams, unless the person scrolled up to read.
  useEffect(() => {
    if (stick.current) end.current?.scrollIntoView({ block: "end" });
  });

  const persist = (next: Conversation[]) => {
    const sorted = [...next].sort((a, b) => b.updatedAt - a.updatedAt);
    conversationsRef.current = sorted;
    setConversations(sorted);
    const { saved, cut } = saveConversations(sorted);
    if (!saved) setNotice("This browser's storage is full: delete old conversations so new ones are kept.");
    else if (cut > 0) setNotice(`${cut} tool result${cut === 1 ? " is" : "s are"} longer than ${MAX_KEPT_RESULT_CHARS / 1024} kB: saved in this browser cut to that (marked where cut); the rest is shown until the page reloads.`);
  };
  const update = (id: string, change: (conversation: Conversation) => Conversation) => {
    persist(conversationsRef.current.map((c) => (c.id === id ? { ...change(c), updatedAt: Date.now() } : c)));
  };

  /**
   * Redraws the turn in progress at most every 50 ms (and in an animation frame), however fast the model
   * streams: twenty redraws a second read as smooth, and leave the main thread free for the person's typing.
   */
  const scheduleRedraw = () => {
    if (frame.current) return;
    frame.current = window.setTimeout(() => {
      requestAnimationFrame(() => {
        frame.current = 0;
        lastDraw.current = performance.now();
        redraw((n) => n + 1);
      });
    }, Math.max(0, REDRAW_MS - (performance.now() - lastDraw.current)));
  };

  const onEvent = (event: TurnEvent) => {
    const turn = running.current;
    if (!turn) return;
    if (event.type === "turn-start") {
      turn.gatewayId = event.id;
      return;
    }
    // Answered as the person did before, for the rest of the gateway's turn too: this tool, or every tool of its server.
    const allowed = event.type === "approval" ? (granted("tools").has(event.fingerprint) ? "allow-session" : granted("servers").has(event.server) ? "allow-server" : undefined) : undefined;
    if (event.type === "approval" && allowed) {
      void answerApproval(event.id, event.fingerprint, { decision: allowed }).catch((error: unknown) => setNotice(String(error)));
      return;
    }
    if (event.type === "server-question" && event.question.kind === "sampling" && granted("sampling").has(event.question.server)) {
      void answerQuestion(event.question.id, { decision: "allow-session" }).catch((error: unknown) => setNotice(String(error)));
      return;
    }
    applyEvent(turn.view, event, status?.tools ?? []);
    scheduleRedraw();
  };

  /** The MCP Apps in the turns shown from `from` (to `to`) are told they go, and answer, before those turns do. */
  const tearDown = (from = 0, to?: number) => tearDownApps([...document.querySelectorAll("#log .turn")].slice(from, to));

  const send = async (input: string, keep?: number, attachments: Attachment[] = []) => {
    if (running.current) return;
    if (keep !== undefined) await tearDown(keep);
    if (running.current) return;
    let conversation = current;
    if (!conversation) {
      conversation = newConversation(activeModel);
      persist([conversation, ...conversationsRef.current]);
      setCurrentId(conversation.id);
    }
    const kept = keep ?? conversation.turns.length;
    const history = historyOf(conversation.turns.slice(0, kept));
    const turn: Running = { id: crypto.randomUUID(), conversationId: conversation.id, keep: kept, view: startTurnView(input, attachments), controller: new AbortController() };
    running.current = turn;
    stick.current = true;
    setSidebarOpen(false);
    redraw((n) => n + 1);
    let finished: Turn | undefined;
    const sent = { id: turn.id, input, ...(attachments.length ? { attachments } : {}) };
    try {
      await runTurn({ model: conversation.model || activeModel, history, input: messageWith(input, attachments) }, (event) => {
        if (event.type === "turn-end") {
          finished = {
            ...sent,
            messages: event.messages,
            status: event.status,
            ...(event.error ? { error: event.error } : {}),
            ...(event.usage ? { usage: event.usage } : {}),
            ...(event.durationMs !== undefined ? { durationMs: event.durationMs } : {}),
            calls: notesOf(turn.view),
          };
        } else onEvent(event);
      }, turn.controller.signal);
    } catch (error) {
      if (error instanceof Unauthorized) setNeedKey(true);
      if (!finished) {
        const aborted = turn.controller.signal.aborted;
        finished = { ...sent, messages: messagesOf(turn.view), status: aborted ? "aborted" : "failed", ...(aborted ? {} : { error: { message: error instanceof Error ? error.message : String(error) } }), calls: notesOf(turn.view) };
      }
    }
    finished ??= { ...sent, messages: messagesOf(turn.view), status: "failed", error: { message: "The connection closed before the turn ended" } };
    const done: Turn = turn.view.notices?.length ? { ...finished, notices: turn.view.notices } : finished;
    running.current = undefined;
    update(turn.conversationId, (c) => ({ ...c, title: c.turns.length === 0 && c.title === "New chat" ? titleOf(input || attachments.map((a) => `@${a.name}`).join(" ")) : c.title, turns: [...c.turns.slice(0, turn.keep), done] }));
    document.getElementById("input")?.focus();
  };

  const stop = () => {
    const turn = running.current;
    if (!turn) return;
    // The gateway ends the turn and sends what arrived; if it cannot be reached, the page keeps what it has.
    if (turn.gatewayId) void stopTurn(turn.gatewayId).catch(() => turn.controller.abort());
    else turn.controller.abort();
  };

  const answer = (id: string, decision: ApprovalDecision, fingerprint: string) => {
    const turn = running.current;
    let server: string | undefined;
    if (turn) {
      for (const segment of turn.view.segments) {
        for (const call of segment.calls) {
          if (call.approval?.id !== id) continue;
          server = call.approval.server;
          call.approval = undefined;
        }
      }
    }
    if (decision.decision === "allow-session") grant("tools", fingerprint);
    if (decision.decision === "allow-server" && server !== undefined) grant("servers", server);
    redraw((n) => n + 1);
    void answerApproval(id, fingerprint, decision).catch((error: unknown) => setNotice(String(error)));
  };

  const answerServer = async (question: ServerQuestion, answer: ServerQuestionAnswer): Promise<string | undefined> => {
    try {
      await answerQuestion(question.id, answer);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    if (question.kind === "sampling" && "decision" in answer && answer.decision === "allow-session") {
      grant("sampling", question.server);
    }
    const turn = running.current;
    if (turn) turn.view.questions = turn.view.questions?.filter((waiting) => waiting.id !== question.id);
    redraw((n) => n + 1);
    return undefined;
  };

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        if (running.current) stop();
        else if (panel) setPanel(undefined);
        else if (sidebarOpen) setSidebarOpen(false);
      } else if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k") {
        event.preventDefault();
        setSidebarOpen(true);
        setTimeout(() => document.getElementById("search")?.focus());
      } else if ((event.ctrlKey || event.metaKey) && event.shiftKey && event.key.toLowerCase() === "o") {
        event.preventDefault();
        void newChat();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  });

  const newChat = async () => {
    if (running.current) return;
    await tearDown();
    // A message sent while the apps were told to go belongs to the conversation it was sent in.
    if (running.current) return;
    setCurrentId(undefined);
    setSidebarOpen(false);
    document.getElementById("input")?.focus();
  };

  const download = async () => {
    if (!current) return;
    const text = await exportTranscript(current.model, historyOf(current.turns));
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
    link.download = `${current.title.replace(/[^\w.-]+/g, "-").slice(0, 40) || "conversation"}.jsonl`;
    link.click();
    URL.revokeObjectURL(link.href);
  };

  const live = running.current && running.current.conversationId === current?.id ? running.current : undefined;
  const turns = current ? current.turns.slice(0, live ? live.keep : undefined) : [];
  const tools = status?.tools ?? [];
  const lastUsage = live?.view.usage ?? current?.turns.at(-1)?.usage;
  const contextLength = status?.models.find((m) => m.id === activeModel)?.contextLength;

  return (
    <div class={`shell${sidebarOpen ? " sidebar-open" : ""}`}>
      <a class="skip" href="#input">
        Skip to the message box
      </a>
      <Header
        status={status}
        model={activeModel}
        onModel={(id) => {
          setModel(id);
          if (current) update(current.id, (c) => ({ ...c, model: id }));
        }}
        usedTokens={lastUsage ? lastUsage.inputTokens + lastUsage.outputTokens : undefined}
        contextLength={contextLength}
        onMenu={() => setSidebarOpen(!sidebarOpen)}
        menuOpen={sidebarOpen}
        onServers={() => setPanel(panel === "servers" ? undefined : "servers")}
        serversOpen={panel === "servers"}
        theme={theme}
        onTheme={() => {
          const next = themeOf(theme) === "dark" ? "light" : "dark";
          localStorage.setItem(THEME, next);
          setTheme(next);
        }}
        onExport={current ? () => void download().catch((error: unknown) => setNotice(String(error))) : undefined}
        onNew={newChat}
      />
      <div class="layout">
        <Sidebar
          conversations={conversations}
          currentId={currentId}
          busy={running.current !== undefined}
          onOpen={async (id) => {
            if (id !== currentId) await tearDown();
            setCurrentId(id);
            setSidebarOpen(false);
          }}
          onNew={newChat}
          onRename={(id, title) => update(id, (c) => ({ ...c, title }))}
          onDelete={async (id) => {
            if (id === currentId) await tearDown();
            persist(conversationsRef.current.filter((c) => c.id !== id));
            if (id === currentId) setCurrentId(undefined);
          }}
        />
        <div class="scrim" hidden={!sidebarOpen} onClick={() => setSidebarOpen(false)} />
        <main
          class="main"
          onScroll={(event) => {
            const el = event.currentTarget as HTMLElement;
            stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
          }}
        >
          {notice && (
            <div class="notice" role="status">
              {notice}
              <button type="button" class="btn small" onClick={() => setNotice(undefined)}>
                Dismiss
              </button>
            </div>
          )}
          {panel === "servers" && status && <ServersPanel status={status} onClose={() => setPanel(undefined)} onRefresh={() => void loadStatus()} />}
          <section id="log" class="log" aria-label="Conversation">
            {turns.length === 0 && !live && <EmptyState status={status} onExample={setDraft} />}
            {[
              ...turns.map((turn, index) => {
                const last = index === turns.length - 1 && !live;
                return (
                  <TurnItem
                    key={turn.id}
                    turn={turn}
                    tools={tools}
                    last={last}
                    index={index}
                    actions={{
                      ...(last ? { onRegenerate: () => void send(turn.input, index, turn.attachments) } : {}),
                      onEdit: (input) => void send(input, index, turn.attachments),
                      onDelete: () => void tearDown(index, index + 1).then(() => update(current!.id, (c) => ({ ...c, turns: c.turns.filter((t) => t.id !== turn.id) }))),
                      ...(turn.error ? { onRetry: () => void send(turn.input, index, turn.attachments) } : {}),
                    }}
                  />
                );
              }),
              // In the same list, under the id its stored turn will have: when it ends, the element stays and only what changed is drawn.
              live && <TurnItem key={live.id} live={live.view} tools={tools} last index={turns.length} actions={{ onApproval: answer, onQuestion: answerServer }} />,
            ]}
            <div ref={end} />
          </section>
          <Composer running={live !== undefined} onSend={(text, attachments) => void send(text, undefined, attachments)} onStop={stop} draft={draft} onDraftUsed={() => setDraft(undefined)} onError={setNotice} />
        </main>
      </div>
      {needKey && (
        <div class="dialog-backdrop" role="dialog" aria-modal="true" aria-labelledby="key-title">
          <form
            class="dialog"
            onSubmit={(event) => {
              event.preventDefault();
              const key = (document.getElementById("key") as HTMLInputElement).value.trim();
              setApiKey(key);
              setNeedKey(false);
              void loadStatus();
            }}
          >
            <h2 id="key-title">This gateway needs an API key</h2>
            <label for="key">API key (kept in this browser)</label>
            <input id="key" type="password" autocomplete="off" required ref={(input) => input?.focus()} defaultValue={apiKey() ?? ""} />
            <button class="btn primary">Save</button>
          </form>
        </div>
      )}
    </div>
  );
}

/**
 * A turn: one in progress (drawn at every redraw), or a finished one, drawn again only when it,
 * the tools or its place (last or not) change: while an answer streams, the turns before it cost
 * nothing per frame. Its actions are new closures each time; they depend only on the turn and
 * its index, which are compared.
 */
const TurnItem = memo(
  ({ turn, live, tools, actions }: { turn?: Turn; live?: TurnView; tools: Status["tools"]; last: boolean; index: number; actions: TurnActions }) =>
    live ? <TurnBlock view={live} tools={tools} live actions={actions} /> : <TurnBlock view={viewOfTurn(turn!)} tools={tools} actions={actions} />,
  (before, after) => after.live === undefined && before.live === undefined && before.turn === after.turn && before.tools === after.tools && before.last === after.last && before.index === after.index,
);

function titleOf(input: string): string {
  const line = input.trim().split("\n")[0] ?? "";
  return line.length > 60 ? `${line.slice(0, 57)}…` : line || "New chat";
}
