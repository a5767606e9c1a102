import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { z } from "zod";
import { callFingerprint, type ApprovalAnswer, type ApproveCallback } from "../../agent/approval.js";
import type { AgentEvent } from "../../agent/events.js";
import { MessageSchema } from "../../agent/transcript.js";
import type { ChatModel } from "../../llm/types.js";
import { ConcurrencyLimit } from "../access.js";
import type { ApprovalRelay } from "../state/state.js";
import type { TurnRunner } from "../turns.js";
import { appUri, type ShownApps } from "./apps.js";
import type { ApprovalQuestion } from "./questions.js";
import type { WebServerQuestions } from "./server-questions.js";

/**
 * The web chat's turns: each streamed as the agent's own events (the page shows tool calls,
 * results and approvals, which the OpenAI format has no place for). The conversation lives in
 * the browser and comes whole with each turn; what is held here is an approval waiting for
 * the person's click, and each running turn's Stop.
 */

const MAX_PENDING_APPROVALS = 256;
/** One client (one API key; every caller, without keys) may hold this many: the others keep room to ask. */
export const MAX_PENDING_APPROVALS_PER_CLIENT = 32;
const MAX_RUNNING_TURNS = 256;
/** A client's share of them, so that a few clients cannot take every turn. */
export const MAX_RUNNING_TURNS_PER_CLIENT = 16;
/** How long an approval waits for the person at the page before its call is denied (gateway.approvalTimeoutSeconds). */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;
/** A deny reason goes back to the model; it is a sentence, not a document. */
const MAX_REASON_CHARS = 2000;

/** Why an answer to an approval was not taken, in one line; undefined when it was. */
export type AnswerRefusal = { status: 404 | 409; message: string } | undefined;

/**
 * Approvals waiting for the person at the page, by id. Each is its client's (the caller of the
 * turn that asked): another key's answer finds nothing. An answer carries the fingerprint of
 * what the page showed (server, tool, definition, arguments) and counts only when it matches.
 */
export class PendingApprovals {
  private readonly waiting = new Map<string, { caller: string; fingerprint: string; resolve: (answer: ApprovalAnswer) => void }>();
  private readonly perCaller = new Map<string, number>();

  /**
   * With a relay (Redis), the answer may come through any replica: it is carried to the one whose turn waits.
   * An approval not answered within `timeoutMs` is denied, so a page left open does not hold its turn forever.
   */
  constructor(
    private readonly relay?: ApprovalRelay,
    private readonly timeoutMs = DEFAULT_APPROVAL_TIMEOUT_MS,
  ) {
    relay?.onAnswer((id, answer) => this.waiting.get(id)?.resolve(answer));
  }

  /** The `ask` for one turn of `caller`: each question goes to `announce`, and waits for `answer` (or the turn's end). */
  asker(caller: string, announce: (question: { type: "approval" } & ApprovalQuestion) => void): ApproveCallback {
    return (request, signal) =>
      new Promise<ApprovalAnswer>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        if (this.waiting.size >= MAX_PENDING_APPROVALS) {
          reject(new Error("too many approvals waiting"));
          return;
        }
        const held = this.perCaller.get(caller) ?? 0;
        if (held >= MAX_PENDING_APPROVALS_PER_CLIENT) {
          reject(new Error(`too many approvals waiting for this client (at most ${MAX_PENDING_APPROVALS_PER_CLIENT})`));
          return;
        }
        this.perCaller.set(caller, held + 1);
        const id = randomUUID();
        const { tool } = request;
        const fingerprint = callFingerprint(tool, request.arguments);
        const settle = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          if (!this.waiting.delete(id)) return;
          void this.relay?.unregister(id);
          const left = (this.perCaller.get(caller) ?? 1) - 1;
          if (left === 0) this.perCaller.delete(caller);
          else this.perCaller.set(caller, left);
        };
        const onAbort = () => {
          settle();
          reject(signal?.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        const answered = (answer: ApprovalAnswer) => {
          settle();
          resolve(answer);
        };
        this.waiting.set(id, { caller, fingerprint, resolve: answered });
        // The model reads this as the reason, and the page drops the question when the call ends denied.
        const timer = setTimeout(
          () => answered({ decision: "deny", reason: `no one answered the approval within ${Math.round(this.timeoutMs / 1000)} s, so it expired (gateway.approvalTimeoutSeconds)` }),
          this.timeoutMs,
        );
        const question = {
          type: "approval" as const,
          id,
          callId: request.callId,
          tool: tool.name,
          server: tool.server,
          ...(tool.title ? { title: tool.title } : {}),
          ...(tool.description ? { description: tool.description } : {}),
          ...(tool.annotations?.destructiveHint === true ? { destructive: true } : {}),
          fingerprint,
          arguments: request.arguments,
        };
        // Known to every replica before the page can answer it; a store that is away makes it a refusal.
        if (!this.relay) announce(question);
        else
          this.relay.register(id, { caller, fingerprint }).then(
            () => announce(question),
            (error: unknown) => {
              settle();
              reject(error);
            },
          );
      });
  }

  /**
   * `caller`'s answer to approval `id`, given on a page that showed `fingerprint`. Refused when
   * no approval of this caller's waits with that id (answered, its turn gone, another key's)
   * here or on another replica, or when what was shown is not what is asked.
   */
  async answer(id: string, caller: string, fingerprint: string, answer: ApprovalAnswer): Promise<AnswerRefusal> {
    const local = this.waiting.get(id);
    const held = local ?? (await this.relay?.held(id));
    if (!held || held.caller !== caller) return { status: 404, message: `No approval ${id} of yours is waiting here` };
    if (held.fingerprint !== fingerprint) return { status: 409, message: `Approval ${id} asks about another call than the one answered (server, tool, definition or arguments differ): answer what is shown now` };
    if (local) {
      local.resolve(answer);
      return undefined;
    }
    return (await this.relay?.forward(id, answer)) ? undefined : { status: 404, message: `No approval ${id} of yours is waiting here` };
  }
}

/** Turns in progress, by id, so that Stop ends one and its partial answer still comes back in `turn-end`. Only the turn's own client may stop it. */
export class RunningTurns {
  private readonly running = new Map<string, { caller: string; controller: AbortController }>();
  /** Each client's turns here. */
  private readonly perCaller: ConcurrencyLimit;

  /**
   * A turn may wait for a person, so a client's turns take at most half of its requests at once
   * (`maxConcurrentPerKey`): the other half stays free for its answers to them, Stop, and the rest.
   */
  constructor(maxConcurrentPerKey: number) {
    this.perCaller = new ConcurrencyLimit(Math.max(1, Math.min(MAX_RUNNING_TURNS_PER_CLIENT, Math.floor(maxConcurrentPerKey / 2))));
  }

  /** The turn, or the one line saying why there is no room for it (the gateway's turns, or `caller`'s share). */
  start(signal: AbortSignal, caller: string): { id: string; signal: AbortSignal; done: () => void } | string {
    if (this.running.size >= MAX_RUNNING_TURNS) return `Too many turns running at once on this gateway (at most ${MAX_RUNNING_TURNS})`;
    const release = this.perCaller.acquire(caller);
    if (!release) return `Too many turns running at once for this client (at most ${this.perCaller.perCaller}, half of gateway.maxConcurrentPerKey up to ${MAX_RUNNING_TURNS_PER_CLIENT})`;
    const id = randomUUID();
    const controller = new AbortController();
    this.running.set(id, { caller, controller });
    const done = () => {
      this.running.delete(id);
      release();
    };
    return { id, signal: AbortSignal.any([signal, controller.signal]), done };
  }

  /** False when no turn of `caller`'s runs with that id (another key's turn is not found either). */
  stop(id: string, caller: string): boolean {
    const turn = this.running.get(id);
    if (!turn || turn.caller !== caller) return false;
    turn.controller.abort(new Error("stopped by the person"));
    return true;
  }
}

export const WebTurnSchema = z.strictObject({
  model: z.string().min(1),
  history: z.array(MessageSchema).max(10_000),
  input: z.string().min(1),
});

/** The fingerprint the page was shown with the question (ApprovalQuestion.fingerprint). */
const ShownSchema = z.string().min(1).max(100);

export const ApprovalAnswerSchema = z.discriminatedUnion("decision", [
  z.strictObject({ id: z.string().min(1).max(100), fingerprint: ShownSchema, decision: z.enum(["allow-once", "allow-session", "allow-server"]) }),
  z.strictObject({ id: z.string().min(1).max(100), fingerprint: ShownSchema, decision: z.literal("deny"), reason: z.string().max(MAX_REASON_CHARS).optional() }),
]);

export const StopSchema = z.strictObject({ id: z.string().min(1).max(100) });

/**
 * One turn of the web chat, streamed as server-sent events (one JSON object each): first
 * `turn-start` with the id Stop names, last `turn-end` with the messages the turn added
 * (after Stop, what had arrived).
 */
export async function streamWebTurn(
  turn: z.infer<typeof WebTurnSchema>,
  context: { res: ServerResponse; signal: AbortSignal; runner: TurnRunner; model: ChatModel; approvals: PendingApprovals; questions: WebServerQuestions; running: RunningTurns; shownApps: ShownApps; caller: string },
): Promise<void> {
  const { res } = context;
  const send = (event: unknown) => {
    if (!res.writableEnded) res.write(`data: ${JSON.stringify(event)}\n\n`);
  };
  const slot = context.running.start(context.signal, context.caller);
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" });
  if (typeof slot === "string") {
    send({ type: "turn-end", status: "failed", messages: [], error: { code: "busy", message: slot } });
    res.end();
    return;
  }
  // While a tool of a server runs, that server's questions (elicitation, sampling) are asked on this turn's stream.
  const questions = context.questions.listen(context.caller, send);
  const offered = context.runner.offered();
  const servers = new Map(offered.map((tool) => [tool.name, tool.server]));
  const apps = new Map<string, { server: string; uri: string }>();
  for (const tool of offered) {
    const uri = appUri(tool._meta);
    if (uri) apps.set(tool.name, { server: tool.server, uri });
  }
  const calls = new Map<string, string>();
  const track = (event: AgentEvent) => {
    // A tool's result with its app, shown to this client: its app may open (and call its server) for this client only.
    const app = event.type === "tool-call-finished" && event.result !== undefined ? apps.get(event.name) : undefined;
    if (app) context.shownApps.record(context.caller, app.server, app.uri);
    if (event.type === "tool-call-started") {
      const server = servers.get(event.name);
      if (server === undefined) return;
      calls.set(event.id, server);
      questions.calling(server, 1);
    } else if (event.type === "tool-call-finished") {
      const server = calls.get(event.id);
      if (server === undefined) return;
      calls.delete(event.id);
      questions.calling(server, -1);
    }
  };
  try {
    send({ type: "turn-start", id: slot.id, mode: context.runner.toolMode(context.model) });
    await context.runner.run(
      { system: "", history: turn.history, input: turn.input, clientTools: [] },
      {
        model: context.model,
        signal: slot.signal,
        ask: context.approvals.asker(context.caller, send),
        onEvent: (event: AgentEvent) => {
          track(event);
          send(event.type === "turn-end" ? turnEnd(event.turn) : event);
        },
      },
    );
  } finally {
    questions.close();
    slot.done();
    res.end();
  }
}

function turnEnd(result: Extract<AgentEvent, { type: "turn-end" }>["turn"]) {
  return {
    type: "turn-end",
    status: result.status,
    stopReason: result.stopReason,
    usage: result.usage,
    durationMs: Math.round(result.durationMs),
    messages: result.messages,
    ...(result.error ? { error: result.error } : {}),
  };
}
