import { randomUUID } from "node:crypto";
import type { ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult } from "@modelcontextprotocol/client";
import { z } from "zod";
import type { ApprovalAnswer, SamplingApprovalRequest } from "../../agent/approval.js";
import { checkValue, formFields, type FieldValue, type FormField } from "../../mcp/elicitation-fields.js";
import { openableUrl } from "../../mcp/openable-url.js";
import type { HubEvent } from "../../mcp/types.js";
import type { QuestionRelay } from "../state/state.js";
import type { ServerQuestion, ServerQuestionAnswer } from "./questions.js";

/**
 * Servers' questions asked in the web chat: an elicitation form, a page a server asks the
 * person to open, a request to use the model. A question goes to the page whose turn is
 * calling a tool of the server that asks (that is whose work it is about); with no such turn,
 * or turns of two clients calling that server at once (it cannot be told whose it is), nobody
 * is asked: the form is declined and sampling refused, as for API clients. Behind replicas the
 * answer may come through any of them: the question is kept in the shared store, checked
 * there against the answer, and carried to the replica that waits (as approvals are).
 */

/** Questions that may wait at once, and per client (one API key; every caller, without keys). */
const MAX_WAITING = 256;
const MAX_WAITING_PER_CLIENT = 32;
/** A server's message is cut here; a one-line text (a name, a message of a sampling request) sooner. */
const MAX_MESSAGE_CHARS = 1000;
const MAX_LINE_CHARS = 500;
/** Of a sampling request, the page is shown the last messages and the first tool names. */
const SHOWN_MESSAGES = 20;
const SHOWN_TOOLS = 50;

/** What a turn's stream carries of server questions. */
export type QuestionEvent = { type: "server-question"; question: ServerQuestion } | { type: "server-question-closed"; id: string; reason: string } | { type: "notice"; code: "server-question"; message: string };

// Controls (newlines kept where a message may have them) and the invisible characters that make text read as other text.
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/gu;
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
/** Server text for one line of the page. */
export const pageLine = (text: string): string => cut(text.replace(INVISIBLE, "").replace(/\s+/g, " ").trim(), MAX_LINE_CHARS);
const pageMessage = (text: string): string => cut(text.replace(INVISIBLE, "").trim(), MAX_MESSAGE_CHARS);

export const ServerQuestionAnswerSchema = z.union([
  z.strictObject({ id: z.string().min(1).max(100), action: z.literal("accept"), content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string()).max(200)])).optional() }),
  z.strictObject({ id: z.string().min(1).max(100), action: z.enum(["decline", "cancel"]) }),
  z.strictObject({ id: z.string().min(1).max(100), decision: z.enum(["allow-once", "allow-session"]) }),
  z.strictObject({ id: z.string().min(1).max(100), decision: z.literal("deny"), reason: z.string().max(2000).optional() }),
]);

interface Listener {
  caller: string;
  send: (event: QuestionEvent) => void;
  /** Tool calls in progress, by server. */
  calling: Map<string, number>;
}

interface Waiting {
  question: ServerQuestion;
  listener: Listener;
  /** Undefined: withdrawn (the turn ended, the server gave up); the asker answers its refusal. */
  settle: (answer: ServerQuestionAnswer | undefined) => void;
}

export class WebServerQuestions {
  private readonly listeners = new Set<Listener>();
  private readonly waiting = new Map<string, Waiting>();
  /** A URL question's elicitation id, by question id, for the server's "complete" notification. */
  private readonly elicitationIds = new Map<string, string>();
  private relay: QuestionRelay | undefined;

  /** Answers may come through other replicas (the gateway's shared store, known only once the hub is up). */
  answeredThrough(relay: QuestionRelay): void {
    this.relay = relay;
    relay.onAnswer((id, answer) => this.waiting.get(id)?.settle(answer));
  }

  /** A turn of the page, heard from while it runs: `calling` as its tool calls start and finish; `close` at its end withdraws what it was asked. */
  listen(caller: string, send: (event: QuestionEvent) => void): { calling: (server: string, by: 1 | -1) => void; close: () => void } {
    const listener: Listener = { caller, send, calling: new Map() };
    this.listeners.add(listener);
    return {
      calling: (server, by) => {
        const count = (listener.calling.get(server) ?? 0) + by;
        if (count > 0) listener.calling.set(server, count);
        else listener.calling.delete(server);
      },
      close: () => {
        this.listeners.delete(listener);
        for (const waiting of [...this.waiting.values()]) if (waiting.listener === listener) waiting.settle(undefined);
      },
    };
  }

  /** `notifications/elicitation/complete`: the server says its page flow finished; the consent still shown is withdrawn as done. */
  hubEvent(event: HubEvent): void {
    if (event.type !== "elicitation-complete") return;
    for (const [id, waiting] of this.waiting) {
      if (waiting.question.kind === "url" && waiting.question.server === pageLine(event.server) && this.elicitationIds.get(id) === event.elicitationId) {
        waiting.listener.send({ type: "server-question-closed", id, reason: "the server says the page flow is complete" });
        waiting.settle({ action: "accept" });
      }
    }
  }

  elicitForm = async (request: ElicitRequestFormParams, server: string, signal?: AbortSignal): Promise<ElicitResult> => {
    const answer = await this.ask(server, signal, (id) => ({ kind: "form", id, server: pageLine(server), message: pageMessage(request.message), fields: formFields(request.requestedSchema, pageLine) }));
    return answer && "action" in answer ? (answer as ElicitResult) : { action: "decline" };
  };

  elicitUrl = async (request: ElicitRequestURLParams, server: string, signal?: AbortSignal): Promise<ElicitResult> => {
    // What the page shows is what opens: the parsed URL, never a cleaned copy of the server's string.
    const url = openableUrl(request.url);
    if (!url.ok) {
      this.target(server)?.send({ type: "notice", code: "server-question", message: `server "${pageLine(server)}" asked you to open a page; declined: ${url.reason}` });
      return { action: "decline" };
    }
    const answer = await this.ask(server, signal, (id) => {
      this.elicitationIds.set(id, request.elicitationId);
      return { kind: "url", id, server: pageLine(server), message: pageMessage(request.message), url: url.href };
    });
    if (!answer || !("action" in answer)) return { action: "decline" };
    return { action: answer.action };
  };

  /** "Allow for this session" is kept by the page (as for tools), so one client's answer never lets a server sample for another. */
  approveSampling = async (request: SamplingApprovalRequest, signal: AbortSignal | undefined): Promise<ApprovalAnswer> => {
    const answer = await this.ask(request.server, signal, (id) => ({
      kind: "sampling",
      id,
      server: pageLine(request.server),
      model: pageLine(request.model),
      maxTokens: request.maxTokens,
      ...(request.systemPrompt ? { systemPrompt: pageMessage(request.systemPrompt) } : {}),
      messages: request.messages.slice(-SHOWN_MESSAGES).map(pageLine),
      earlier: Math.max(0, request.messages.length - SHOWN_MESSAGES),
      tools: request.tools.slice(0, SHOWN_TOOLS).map(pageLine),
    }));
    if (!answer || !("decision" in answer)) return { decision: "deny" };
    return answer.decision === "allow-session" ? { decision: "allow-once" } : answer;
  };

  /**
   * The person's answer to question `id`, from `caller` (the client whose turn was asked):
   * undefined once given, else why not (one line; the question still waits when it was a form that does not validate).
   */
  async answer(id: string, caller: string, answer: ServerQuestionAnswer): Promise<{ status: 404 | 400; message: string } | undefined> {
    const notHere = { status: 404 as const, message: `No server question ${id} is waiting here` };
    const waiting = this.waiting.get(id);
    const held = waiting ? { caller: waiting.listener.caller, question: waiting.question } : await this.relay?.held(id);
    if (!held || held.caller !== caller) return notHere;
    const problem = answerProblem(held.question, answer);
    if (problem) return { status: 400, message: problem };
    if (waiting) waiting.settle(answer);
    else if (!(await this.relay?.forward(id, answer))) return notHere;
    return undefined;
  }

  /** The turn to ask about `server`: the one calling its tools, when all such turns are one client's. */
  private target(server: string): Listener | undefined {
    const calling = [...this.listeners].filter((listener) => (listener.calling.get(server) ?? 0) > 0);
    if (calling.length === 0 || new Set(calling.map((listener) => listener.caller)).size > 1) return undefined;
    return calling[0];
  }

  private ask(server: string, signal: AbortSignal | undefined, make: (id: string) => ServerQuestion): Promise<ServerQuestionAnswer | undefined> {
    const listener = this.target(server);
    if (!listener || signal?.aborted) return Promise.resolve(undefined);
    const held = [...this.waiting.values()].filter((waiting) => waiting.listener.caller === listener.caller).length;
    if (this.waiting.size >= MAX_WAITING || held >= MAX_WAITING_PER_CLIENT) {
      listener.send({ type: "notice", code: "server-question", message: `a question from server "${pageLine(server)}" was declined: ${held >= MAX_WAITING_PER_CLIENT ? MAX_WAITING_PER_CLIENT : MAX_WAITING} are already waiting` });
      return Promise.resolve(undefined);
    }
    const id = randomUUID();
    const question = make(id);
    return new Promise((resolve) => {
      const onAbort = () => {
        listener.send({ type: "server-question-closed", id, reason: `server "${question.server}" withdrew its question` });
        settle(undefined);
      };
      const settle = (answer: ServerQuestionAnswer | undefined) => {
        signal?.removeEventListener("abort", onAbort);
        if (!this.waiting.delete(id)) return;
        this.elicitationIds.delete(id);
        void this.relay?.unregister(id);
        resolve(answer);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(id, { question, listener, settle });
      // Known to every replica before the page can answer it; a store that is away declines it, saying so.
      if (!this.relay) listener.send({ type: "server-question", question });
      else
        this.relay.register(id, { caller: listener.caller, question }).then(
          () => listener.send({ type: "server-question", question }),
          (error: unknown) => {
            listener.send({ type: "notice", code: "server-question", message: `a question from server "${question.server}" was declined: ${error instanceof Error ? error.message : String(error)}` });
            settle(undefined);
          },
        );
    });
  }
}

/** Why `answer` does not answer `question` (one line), or undefined. */
function answerProblem(question: ServerQuestion, answer: ServerQuestionAnswer): string | undefined {
  if (question.kind === "sampling" ? !("decision" in answer) : !("action" in answer)) {
    return question.kind === "sampling" ? "a sampling request is answered with a decision" : "an elicitation is answered with an action";
  }
  if (question.kind === "form" && "action" in answer && answer.action === "accept") return formProblem(question.fields, answer.content ?? {});
  if (question.kind === "url" && "action" in answer && answer.action === "accept" && answer.content) return "a page to open is accepted without content";
  return undefined;
}

/** Why accepted form content does not fit the form (one line naming the field), or undefined. */
function formProblem(fields: readonly FormField[], content: Record<string, FieldValue>): string | undefined {
  const names = new Set(fields.map((field) => field.name));
  const stray = Object.keys(content).find((name) => !names.has(name));
  if (stray !== undefined) return `content.${stray}: the form has no such field`;
  for (const field of fields) {
    const problem = checkValue(field, content[field.name]);
    if (problem) return `content.${field.name}: ${problem}`;
  }
  return undefined;
}
