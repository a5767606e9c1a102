import type { ApprovalAnswer, ToolApprovalRequest } from "../../agent/approval.js";
import type { AgentEvent, TurnResult } from "../../agent/events.js";
import type { ServerState } from "../../mcp/types.js";
import type { AgentSession } from "../chat/session.js";
import type { ContentPart, Message } from "../../llm/types.js";
import { beginPromptTurn, messageInput, slashInput } from "../chat/chat-input.js";
import { describeAttachment } from "../chat/mentions.js";
import { runSlashCommand } from "../chat/slash-commands.js";
import { ToolResults } from "../chat/tool-results.js";
import { loadHighlighter } from "../render/code-highlight.js";
import type { Colors } from "../render/colors.js";
import { describeMediaIn, summaryBesideMedia } from "../render/media.js";
import { progressText } from "../render/progress-text.js";
import { restartLine } from "../render/server-restart.js";
import { cleanTerminalText, TerminalTextCleaner } from "../render/terminal-text.js";
import { splitFinishedMarkdown } from "./markdown-blocks.js";
import { PersonTime, type ClockMark } from "./dialog-clock.js";
import { plainSubmission, type Submission } from "./prompt-editor.js";
import { ServerQuestions } from "./server-questions.js";
import { errorAdvice, turnUsageItems } from "./usage-items.js";
import type { ChatItem, ChatItemBody } from "./chat-items.js";

export interface LiveTurn {
  startedAt: number;
  /** Servers the turn waits for before it is sent (those still starting). */
  waitingFor: readonly string[];
  /** Whether anything of the model's answer (text, thinking or a tool call) has come yet. */
  answered: boolean;
  /** When the model's answer last moved (a piece of text or thinking, a tool call): a stream that stops is shown stalled. */
  lastHeardAt: number;
  /** The part of the answer not yet moved to the static region. */
  text: string;
  reasoning: string;
  /** Tool calls running now: since when, and the last progress their server reported (cleaned). */
  running: RunningCall[];
}

export interface RunningCall {
  id: string;
  name: string;
  args: string;
  started: ClockMark;
  progress?: string;
}

export interface PendingApproval {
  request: ToolApprovalRequest;
  answer(answer: ApprovalAnswer): void;
}

/** A question with a list of answers (the --resume picker, replacing a file). */
export interface PendingChoice {
  title: string;
  options: readonly string[];
  /** The keys, and what Esc does. */
  hint: string;
  /** The index chosen, or undefined when the user cancelled. */
  answer(index: number | undefined): void;
}

export interface ChatState {
  choice: PendingChoice | undefined;
  items: readonly ChatItem[];
  live: LiveTurn | undefined;
  /** Messages typed during a turn, sent in order after it. */
  queue: readonly Submission[];
  /** The turn was cancelled with messages queued: they wait until the person sends them (or drops them). */
  queuePaused: boolean;
  approval: PendingApproval | undefined;
  /** The chat is ending: the input is no longer drawn. */
  exiting: boolean;
  /** Servers still connecting. */
  starting: readonly string[];
}

const MAX_ARGS_SHOWN = 160;
/** How often streamed text is drawn (Ink draws at most 30 frames a second anyway). */
const FRAME_MS = 40;

/**
 * The chat without the screen: what was said, the turn in progress, the queue of what was
 * typed meanwhile and the question waiting for the user. The Ink components draw its state
 * and send it the user's acts; it runs turns and slash commands one at a time, in order.
 */
export class ChatController {
  private state: ChatState = { choice: undefined, items: [], live: undefined, queue: [], queuePaused: false, approval: undefined, exiting: false, starting: [] };
  private readonly listeners = new Set<() => void>();
  private nextId = 1;
  private pendingFrame: NodeJS.Timeout | undefined;
  private turn: AbortController | undefined;
  private working = false;
  private cleaner = new TerminalTextCleaner();
  private reasoningCleaner = new TerminalTextCleaner();
  /** Servers' questions (sampling, forms, URLs, logins), shown one at a time. */
  readonly questions = new ServerQuestions((text) => this.show({ kind: "notice", tone: "info", text }));
  /** Each tool call's result, for /result and /image. */
  readonly toolResults = new ToolResults();
  /** Time with a dialog on screen, left out of the turn's duration, a tool call's and a running tool's seconds. */
  private readonly personTime = new PersonTime();
  readonly dialogs = this.personTime.dialogs;

  constructor(
    private readonly session: AgentSession,
    private readonly colors: Colors,
    private readonly columns: () => number,
    /** Called after each turn and command, to save the conversation as it goes. */
    private readonly onConversation: () => void = () => undefined,
    /** Called when a command replaced the conversation (/clear, /load): it is saved anew from then on. */
    private readonly onNewConversation: () => void = () => undefined,
  ) {
    this.questions.subscribe(() => this.timeDialogs());
  }

  /** Shows a list to choose from and waits for the choice. */
  choose(title: string, options: readonly string[], hint: string): Promise<number | undefined> {
    return new Promise((resolve) => {
      this.update({
        choice: {
          title,
          options,
          hint,
          answer: (index) => {
            this.update({ choice: undefined });
            resolve(index);
          },
        },
      });
    });
  }

  getState = (): ChatState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /**
   * Shows each server's start-up as it happens (connected with its tools, or why it failed)
   * and keeps `starting` current. Returns the unsubscribe function.
   */
  watchServers(): () => void {
    const reported = new Map<string, string>();
    const report = (state: ServerState): void => {
      // A restart's failures come with the same status: the line comes when they end.
      const key = `${state.status}${state.restarting ? " restarting" : ""}`;
      if (reported.get(state.name) === key) return;
      reported.set(state.name, key);
      const name = cleanTerminalText(state.name);
      if (state.dropped !== undefined) {
        const line = restartLine(state);
        if (line) this.show({ kind: "server", ...line });
      } else if (state.status === "connected") {
        const ms = state.connectMs === undefined ? "" : ` · ${Math.round(state.connectMs)} ms`;
        this.show({ kind: "server", ok: true, text: `${name}: ${state.toolCount} tool${state.toolCount === 1 ? "" : "s"}${ms}` });
      } else if (state.status === "failed") {
        this.show({ kind: "server", ok: false, text: `${name} failed to start: ${cleanTerminalText(state.error ?? "unknown error")}` });
      }
    };
    const refresh = (): void => {
      const servers = this.session.hub.servers();
      for (const state of servers) report(state);
      this.update({ starting: servers.filter((state) => state.status === "connecting").map((state) => state.name) });
    };
    refresh();
    return this.session.hub.on((event) => {
      if (event.type === "server-status") refresh();
    });
  }

  /** Adds a line to the static region. */
  show(item: ChatItemBody): void {
    this.update({ items: [...this.state.items, { ...item, id: this.nextId++ }] });
  }

  /** A message or a /command from the prompt: run now, or queued behind the turn in progress (a paused queue goes on with it). */
  submit(message: string | Submission): void {
    const submission = typeof message === "string" ? plainSubmission(message) : message;
    if (submission.text.trim() === "") return;
    this.update({ queue: [...this.state.queue, submission], queuePaused: false });
    void this.drain();
  }

  /**
   * Esc / Ctrl-C: cancels the turn in progress (and a question waiting in it); false when there
   * was none. Messages queued behind it are not sent: they wait, paused, for `resumeQueue`,
   * `submit` or `dropQueue` (what was typed after seeing the answer may no longer fit).
   */
  cancel(): boolean {
    if (!this.turn) return false;
    if (this.state.queue.length > 0) this.update({ queuePaused: true });
    this.turn.abort();
    return true;
  }

  /** Sends the paused queue; false when it was not paused. */
  resumeQueue(): boolean {
    if (!this.state.queuePaused) return false;
    this.update({ queuePaused: false });
    void this.drain();
    return true;
  }

  /** Drops the paused queue, saying so; false when it was not paused. */
  dropQueue(): boolean {
    const count = this.state.queue.length;
    if (!this.state.queuePaused || count === 0) return false;
    this.update({ queue: [], queuePaused: false });
    this.show({ kind: "notice", tone: "info", text: `${count} queued message${count === 1 ? "" : "s"} dropped` });
    return true;
  }

  /** Takes back the last queued message (to edit it), if any. */
  unqueueLast(): Submission | undefined {
    const last = this.state.queue.at(-1);
    if (last !== undefined) this.update({ queue: this.state.queue.slice(0, -1), queuePaused: this.state.queuePaused && this.state.queue.length > 1 });
    return last;
  }

  /** Ends the chat: the turn in progress is cancelled, the queue dropped; the screen unmounts when it sees `exiting`. */
  exit(): void {
    this.turn?.abort();
    this.update({ exiting: true, queue: [] });
  }

  /** The agent's `ask` callback: shows the approval dialog and waits for the answer. */
  ask = (request: ToolApprovalRequest, signal: AbortSignal | undefined): Promise<ApprovalAnswer> =>
    new Promise((resolve) => {
      const done = (answer: ApprovalAnswer): void => {
        signal?.removeEventListener("abort", onAbort);
        if (this.state.approval === pending) this.update({ approval: undefined });
        resolve(answer);
      };
      const onAbort = (): void => done({ decision: "deny" });
      const pending: PendingApproval = { request, answer: done };
      if (signal?.aborted) return resolve({ decision: "deny" });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.update({ approval: pending });
    });

  private async drain(): Promise<void> {
    if (this.working) return;
    this.working = true;
    try {
      for (;;) {
        const next = this.state.queue[0];
        if (next === undefined || this.state.exiting || this.state.queuePaused) break;
        this.update({ queue: this.state.queue.slice(1) });
        if (next.text.trim().startsWith("/")) {
          this.show({ kind: "user", text: cleanTerminalText(next.shown) });
          const input = await slashInput(next.text, this.session, this.colors).catch((error: unknown) => {
            this.show({ kind: "notice", tone: "error", text: cleanTerminalText(error instanceof Error ? error.message : String(error)) });
            return undefined;
          });
          if (input?.kind === "prompt") {
            this.show({ kind: "output", text: input.shown });
            await this.runTurn(next, input);
          } else if (input) {
            // Esc / Ctrl-C cancels a command that waits on the model (/compact), as it cancels a turn.
            this.turn = new AbortController();
            const result = await runSlashCommand(next.text.trim(), {
              session: this.session,
              colors: this.colors,
              print: (text) => this.show({ kind: "output", text }),
              columns: this.columns(),
              signal: this.turn.signal,
              toolResults: this.toolResults,
              newConversation: this.onNewConversation,
              confirm: async (question) => (await this.choose(cleanTerminalText(question), ["Yes", "No"], "↑/↓ choose · Enter answers · Esc is no")) === 0,
            }).finally(() => (this.turn = undefined));
            if (result === "exit") return this.exit();
          }
        } else {
          await this.runTurn(next);
        }
        this.onConversation();
      }
    } finally {
      this.working = false;
    }
  }

  /** Sends a message (with the resources it mentions), or a prompt command's messages (`prompt`). */
  private async runTurn(message: Submission, prompt?: { before: Message[]; input: string | ContentPart[] | null }): Promise<void> {
    if (!prompt) this.show({ kind: "user", text: cleanTerminalText(message.shown) });
    this.turn = new AbortController();
    this.cleaner = new TerminalTextCleaner();
    this.reasoningCleaner = new TerminalTextCleaner();
    const signal = this.turn.signal;
    this.update({ live: { startedAt: Date.now(), lastHeardAt: Date.now(), waitingFor: this.state.starting, answered: false, text: "", reasoning: "", running: [] } });
    try {
      // A turn waits only for the servers still starting (each within its startup timeout), so their tools are offered.
      if (this.state.starting.length > 0) await untilAborted(this.session.ready, signal);
      // The context length for the gauge: asked of the model server once per model.
      await untilAborted(this.session.usage.learnContextLength(), signal);
      // Code in answers is highlighted; the grammars load once, on the first turn, never at start-up.
      await untilAborted(loadHighlighter(), signal);
      if (signal.aborted) {
        this.show({ kind: "notice", tone: "info", text: "cancelled" });
        return;
      }
      if (this.state.live) this.update({ live: { ...this.state.live, waitingFor: [], startedAt: Date.now() } });
      let input: string | ContentPart[] | null;
      if (prompt) input = beginPromptTurn(this.session, prompt);
      else {
        const { content, attachments } = await messageInput(message.text, this.session);
        for (const attachment of attachments) this.show({ kind: "notice", tone: attachment.attached ? "info" : "warning", text: cleanTerminalText(describeAttachment(attachment)) });
        input = content;
      }
      this.personTime.startTurn();
      const turn = await this.session.agent.send(input, { signal, onEvent: (event) => this.onEvent(event) });
      this.dropUnanswered(turn);
    } catch (error) {
      this.flushLive();
      this.show({ kind: "notice", tone: "error", text: cleanTerminalText(error instanceof Error ? error.message : String(error)) });
    } finally {
      this.turn = undefined;
      this.update({ live: undefined });
    }
  }

  /**
   * A turn that failed before the model said anything is taken out of the conversation: left in,
   * the message is sent again with the next one (twice, when the person sends it again). The
   * input history still has it.
   */
  private dropUnanswered(turn: TurnResult): void {
    if (turn.status !== "failed" || turn.text !== "" || turn.reasoning !== "" || turn.toolCalls.length > 0 || turn.messages.length === 0) return;
    const messages = this.session.agent.messages;
    this.session.agent.replaceMessages(messages.slice(0, messages.length - turn.messages.length));
    this.show({ kind: "notice", tone: "info", text: "the message is not kept in the conversation: ↑ brings it back to send again" });
  }

  private onEvent(received: AgentEvent): void {
    // The turn's time is the model's and the tools', not the time a dialog waited for the person.
    const event = this.personTime.adjust(received);
    this.session.usage.observe(event);
    const live = this.state.live;
    if (!live) return;
    switch (event.type) {
      case "model-request":
        break;
      case "reasoning-delta":
        this.updateSoon({ live: { ...live, answered: true, lastHeardAt: Date.now(), reasoning: live.reasoning + this.reasoningCleaner.push(event.text) } });
        break;
      case "text-delta": {
        let reasoning = live.reasoning;
        if (reasoning !== "") {
          this.show({ kind: "reasoning", text: reasoning + this.reasoningCleaner.end() });
          reasoning = "";
        }
        const { finished, rest } = splitFinishedMarkdown(live.text + this.cleaner.push(event.text));
        if (finished !== "") this.show({ kind: "answer", text: finished });
        this.updateSoon({ live: { ...(this.state.live ?? live), answered: true, lastHeardAt: Date.now(), reasoning, text: rest } });
        break;
      }
      case "tool-call-started": {
        this.flushLive();
        const args = cleanTerminalText(typeof event.arguments === "string" ? event.arguments : summarizeArguments(event.arguments));
        const current = this.state.live ?? live;
        const call: RunningCall = { id: event.id, name: cleanTerminalText(event.name), args, started: this.dialogs.mark() };
        this.update({ live: { ...current, answered: true, lastHeardAt: Date.now(), running: [...current.running, call] } });
        break;
      }
      case "tool-progress": {
        const progress = cleanTerminalText(progressText(event.progress)).replace(/\s+/g, " ");
        this.updateSoon({ live: { ...live, running: live.running.map((call) => (call.id === event.id ? { ...call, progress } : call)) } });
        break;
      }
      case "tool-call-finished": {
        const current = this.state.live ?? live;
        const started = current.running.find((call) => call.id === event.id);
        // Images and sounds get lines of their own, so the summary leaves them out.
        const media = describeMediaIn(event.result);
        this.show({
          kind: "tool",
          number: this.toolResults.add(event.name, event.result, event.summary),
          name: cleanTerminalText(event.name),
          args: started?.args ?? "",
          summary: cleanTerminalText(media.length > 0 && event.result ? summaryBesideMedia(event.result) : event.summary),
          media,
          isError: event.isError,
          durationMs: event.durationMs,
          denied: event.outcome === "denied" || event.outcome === "not-approved",
        });
        this.update({ live: { ...(this.state.live ?? current), running: current.running.filter((call) => call.id !== event.id), answered: false, startedAt: Date.now(), lastHeardAt: Date.now() } });
        break;
      }
      case "usage":
        break;
      case "notice":
        this.flushLive();
        this.show({ kind: "notice", tone: "warning", text: cleanTerminalText(event.message) });
        break;
      case "error": {
        this.flushLive();
        this.show({ kind: "notice", tone: "error", text: cleanTerminalText(event.error.message) });
        const advice = errorAdvice(event.error);
        if (advice) this.show(advice);
        break;
      }
      case "turn-end":
        this.flushLive();
        this.finish(event.turn);
        break;
    }
  }

  /** Moves what the live region holds (thinking, answer text so far) to the static region. */
  private flushLive(): void {
    const live = this.state.live;
    if (!live) return;
    const reasoning = live.reasoning + this.reasoningCleaner.end();
    const text = live.text + this.cleaner.end();
    if (reasoning !== "") this.show({ kind: "reasoning", text: reasoning });
    if (text.trim() !== "") this.show({ kind: "answer", text });
    this.update({ live: { ...(this.state.live ?? live), reasoning: "", text: "" } });
  }

  private finish(turn: TurnResult): void {
    if (turn.limitReached) {
      const why = turn.stopReason === "repeated-call" ? "the model repeated the same tool call" : `${turn.iterations - 1} rounds of tool calls`;
      this.show({ kind: "notice", tone: "warning", text: `stopped calling tools: ${why}; the answer is from what it had` });
    }
    if (turn.status === "aborted") this.show({ kind: "notice", tone: "info", text: "cancelled" });
    for (const item of turnUsageItems(usageLine(turn), this.session.usage)) this.show(item);
  }

  private update(patch: Partial<ChatState>): void {
    this.state = { ...this.state, ...patch };
    this.timeDialogs();
    this.notify();
  }

  private timeDialogs(): void {
    const asking = this.questions.getState().current !== undefined;
    this.personTime.showing(this.state.approval !== undefined, asking);
  }

  /**
   * A streamed piece of the answer is drawn with the next frame rather than at once: at a
   * hundred tokens a second, redrawing per token would cost the terminal UI most of a core.
   */
  private updateSoon(patch: Partial<ChatState>): void {
    this.state = { ...this.state, ...patch };
    this.pendingFrame ??= setTimeout(() => this.notify(), FRAME_MS);
  }

  private notify(): void {
    if (this.pendingFrame) clearTimeout(this.pendingFrame);
    this.pendingFrame = undefined;
    for (const listener of this.listeners) listener();
  }
}

/** Waits for `promise`, or less if `signal` aborts first. */
function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    void promise.then(done, done);
  });
}

/** `in 1,234 · out 56 · 2.1 s · 26.7 tok/s` */
export function usageLine(turn: TurnResult): string {
  const seconds = turn.durationMs / 1000;
  const { inputTokens, outputTokens } = turn.usage;
  const rate = seconds > 0 && outputTokens > 0 ? ` · ${(outputTokens / seconds).toFixed(1)} tok/s` : "";
  return `${inputTokens.toLocaleString("en-US")} in · ${outputTokens.toLocaleString("en-US")} out · ${seconds.toFixed(1)} s${rate}`;
}

/** `path: "/tmp/a", content: "hello…"`: each argument, its value cut short. */
export function summarizeArguments(args: Record<string, unknown>): string {
  const parts = Object.entries(args).map(([key, value]) => {
    const shown = typeof value === "string" ? JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value) : JSON.stringify(value) ?? "null";
    return `${key}: ${shown.length > 80 ? `${shown.slice(0, 80)}…` : shown}`;
  });
  const joined = parts.join(", ");
  return cleanTerminalText(joined.length > MAX_ARGS_SHOWN ? `${joined.slice(0, MAX_ARGS_SHOWN)}…` : joined);
}
