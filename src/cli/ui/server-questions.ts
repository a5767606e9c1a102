import type { ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult } from "@modelcontextprotocol/client";
import type { ApprovalAnswer, SamplingApprovalRequest } from "../../agent/approval.js";
import { openableUrl } from "../../mcp/openable-url.js";
import { formFields } from "../../mcp/elicitation-fields.js";
import type { QuestionDialogs } from "../server-questions/prompter.js";
import { oneLine } from "../render/one-line.js";
import { cleanTerminalText } from "../render/terminal-text.js";
import { applyApprovalKey, INITIAL_APPROVAL_DIALOG, type ApprovalDialogState } from "./approval-dialog.js";
import { applyFormKey, initialForm, type FormState } from "./elicitation-form.js";
import type { Key, Paste } from "./keys.js";

/** The yes / no choices of a URL or login question, in order. */
export const OPEN_CHOICES = [
  { key: "y", label: "Open it in the browser" },
  { key: "n", label: "Do not open it" },
] as const;

/** A question from a server, as the dialog shows it (all server text already cleaned). */
export type ServerQuestion =
  | { kind: "sampling"; request: SamplingApprovalRequest; dialog: ApprovalDialogState }
  | { kind: "form"; server: string; message: string; form: FormState }
  | { kind: "url"; server: string; message: string; url: string; elicitationId: string; selected: number }
  | { kind: "login"; server: string; selected: number };

interface Pending {
  question: ServerQuestion;
  /** Ends the question with the answer a key gave (or a cancel). */
  settle(answer: unknown): void;
}

export interface ServerQuestionsState {
  /** The question on screen. */
  current: ServerQuestion | undefined;
  /** How many more wait behind it. */
  waiting: number;
  /** Questions declined since the last line that said so (a flood is counted here, not a line each). */
  declined: number;
}

/** Most questions that may wait at once; a server asking more is declined at once. */
const MAX_WAITING = 20;
/** A server's message is cut here, so one dialog cannot fill the screen. */
const MAX_MESSAGE_CHARS = 1000;

const message = (text: string): string => {
  const clean = cleanTerminalText(text).trim();
  return clean.length > MAX_MESSAGE_CHARS ? `${clean.slice(0, MAX_MESSAGE_CHARS)}…` : clean;
};

/**
 * Servers' questions in the chat (sampling approval, elicitation forms and URLs, a login to
 * offer), one dialog at a time in the order they came: each waits behind the one on screen.
 * Plain state, no screen: the view draws `getState()`, the chat sends keys to `key()`.
 */
export class ServerQuestions implements QuestionDialogs {
  private readonly queue: Pending[] = [];
  private state: ServerQuestionsState = { current: undefined, waiting: 0, declined: 0 };
  /** Whether the line saying questions are being declined has been shown since the queue last had room. */
  private saidFull = false;
  private declined = 0;
  private readonly listeners = new Set<() => void>();

  /** `notice` shows a line in the conversation (a question dropped, a URL flow finished). */
  constructor(private readonly notice: (text: string) => void = () => undefined) {}

  getState = (): ServerQuestionsState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  approveSampling = (request: SamplingApprovalRequest, signal: AbortSignal | undefined): Promise<ApprovalAnswer> =>
    this.ask<ApprovalAnswer>({ kind: "sampling", request, dialog: INITIAL_APPROVAL_DIALOG }, { decision: "deny" }, signal);

  elicitForm = (request: ElicitRequestFormParams, server: string): Promise<ElicitResult> =>
    this.ask<ElicitResult>(
      { kind: "form", server: oneLine(server), message: message(request.message), form: initialForm(formFields(request.requestedSchema, oneLine)) },
      { action: "decline" },
    );

  elicitUrl = async (request: ElicitRequestURLParams, server: string): Promise<ElicitResult> => {
    // What the dialog shows is what opens: the parsed URL, never a cleaned copy of the server's string.
    const url = openableUrl(request.url);
    if (!url.ok) {
      this.notice(`server "${oneLine(server)}" asked you to open a page; declined: ${url.reason}`);
      return { action: "decline" };
    }
    const open = await this.ask<boolean | "done" | undefined>(
      { kind: "url", server: oneLine(server), message: message(request.message), url: url.href, elicitationId: request.elicitationId, selected: 0 },
      undefined,
    );
    if (open === undefined) return { action: "cancel" };
    if (!open) return { action: "decline" };
    if (open === "done") return { action: "accept" };
    this.openUrl(url.href);
    return { action: "accept" };
  };

  /** Asks whether to open the browser login a server asks for; false when declined. */
  offerLogin = (server: string): Promise<boolean> => this.ask<boolean | undefined>({ kind: "login", server: oneLine(server), selected: 0 }, false).then((yes) => yes === true);

  /** Set by the front end: how a URL the person agreed to is opened. */
  openUrl: (url: string) => void = () => undefined;

  /**
   * `notifications/elicitation/complete`: the server says the page flow finished. A URL
   * question still waiting for it is accepted without opening anything (nothing is left to
   * do there), and the chat says so.
   */
  completed(server: string, elicitationId: string): void {
    const pending = this.queue.find((p) => p.question.kind === "url" && p.question.elicitationId === elicitationId && p.question.server === oneLine(server));
    pending?.settle("done");
    this.notice(`server "${oneLine(server)}" says the page flow is complete`);
  }

  /** One key for the question on screen; false when there is none (the key is the input's). */
  key(key: Key | Paste): boolean {
    const head = this.queue[0];
    if (!head) return false;
    const question = head.question;
    switch (question.kind) {
      case "sampling": {
        const step = applyApprovalKey(question.dialog, key.kind === "ctrl" && key.letter === "c" ? { kind: "escape" } : key);
        if (step.answer) head.settle(step.answer);
        else this.replace(head, { ...question, dialog: step.state });
        break;
      }
      case "form": {
        const step = applyFormKey(question.form, key);
        if (step.result) head.settle(step.result);
        else this.replace(head, { ...question, form: step.state });
        break;
      }
      case "url":
      case "login": {
        const step = applyOpenKey(question.selected, key);
        if ("answer" in step) head.settle(step.answer);
        else this.replace(head, { ...question, selected: step.selected });
        break;
      }
    }
    return true;
  }

  private ask<T>(question: ServerQuestion, refused: T, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.resolve(refused);
    if (this.queue.length >= MAX_WAITING) {
      // One line when the queue fills; the rest are counted under the dialog and summed up in one line once it has room.
      if (!this.saidFull) this.notice(`a server question was declined: ${MAX_WAITING} are already waiting`);
      else this.declined += 1;
      this.saidFull = true;
      this.publish();
      return Promise.resolve(refused);
    }
    return new Promise<T>((resolve) => {
      const pending: Pending = {
        question,
        settle: (answer) => {
          signal?.removeEventListener("abort", onAbort);
          const at = this.queue.indexOf(pending);
          if (at === -1) return;
          this.queue.splice(at, 1);
          this.reportDeclined();
          this.publish();
          resolve(answer as T);
        },
      };
      // The server gave up on its request (or the turn ended): the question goes.
      const onAbort = (): void => pending.settle(refused);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(pending);
      this.publish();
    });
  }

  private replace(pending: Pending, question: ServerQuestion): void {
    pending.question = question;
    this.publish();
  }

  /** The queue has room again: the questions declined meanwhile are summed up in one line. */
  private reportDeclined(): void {
    if (this.declined > 0) this.notice(`${this.declined} more server question${this.declined === 1 ? " was" : "s were"} declined`);
    this.declined = 0;
    this.saidFull = false;
  }

  private publish(): void {
    this.state = { current: this.queue[0]?.question, waiting: Math.max(0, this.queue.length - 1), declined: this.declined };
    for (const listener of this.listeners) listener();
  }
}

/** y / n (or the arrows and Enter) answer a yes/no question; Esc or Ctrl-C cancels it (undefined). */
function applyOpenKey(selected: number, key: Key | Paste): { selected: number } | { answer: boolean | undefined } {
  switch (key.kind) {
    case "up":
    case "down":
    case "tab":
      return { selected: 1 - selected };
    case "enter":
      return { answer: selected === 0 };
    case "escape":
      return { answer: undefined };
    case "ctrl":
      return key.letter === "c" ? { answer: undefined } : { selected };
    case "text":
      if (/^y$/i.test(key.text)) return { answer: true };
      if (/^n$/i.test(key.text)) return { answer: false };
      return { selected };
    default:
      return { selected };
  }
}
