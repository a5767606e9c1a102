import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { ApprovalAnswer, ApproveCallback } from "../agent/approval.js";
import type { AgentEvent } from "../agent/events.js";
import { MessageSchema, serializeTranscript } from "../agent/transcript.js";
import type { ChatModel } from "../llm/types.js";
import { HttpError } from "./http.js";
import type { TurnRunner } from "./turns.js";

/**
 * The web chat's side of the gateway: its files, and a small API that streams the agent's
 * own events (the page shows tool calls, results and approvals, which the OpenAI format has
 * no place for). The conversation lives in the browser and comes whole with each turn;
 * the one thing held here is an approval waiting for the person's click.
 */

/** dist/web, from src/gateway as from dist/gateway. */
const WEB_ROOT = fileURLToPath(new URL("../../dist/web/", import.meta.url));
const FILES: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/app.css": { file: "app.css", type: "text/css; charset=utf-8" },
};
/** A page that runs only our own script: no inline code, nothing from elsewhere, images only as data: URLs. */
const PAGE_POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'";

export async function sendWebFile(path: string, res: ServerResponse): Promise<boolean> {
  const entry = Object.hasOwn(FILES, path) ? FILES[path] : undefined;
  if (!entry) return false;
  let body: Buffer;
  try {
    body = await readFile(`${WEB_ROOT}${entry.file}`);
  } catch {
    throw new HttpError(404, "The web chat is not built: run `npm run build`", "invalid_request_error", "not_found");
  }
  res.writeHead(200, { "content-type": entry.type, "content-security-policy": PAGE_POLICY, "x-content-type-options": "nosniff", "cache-control": "no-cache" });
  res.end(body);
  return true;
}

const MAX_PENDING_APPROVALS = 256;
/** One client (one API key; every caller, without keys) may hold this many: the others keep room to ask. */
export const MAX_PENDING_APPROVALS_PER_CLIENT = 32;

/** Approvals waiting for the person at the page, by id. */
export class PendingApprovals {
  private readonly waiting = new Map<string, (answer: ApprovalAnswer) => void>();
  private readonly perCaller = new Map<string, number>();

  /** The `ask` for one turn of `caller`: each question goes to `announce`, and waits for `answer` (or the turn's end). */
  asker(
    caller: string,
    announce: (question: { type: "approval"; id: string; callId: string; tool: string; server: string; arguments: Record<string, unknown> }) => void,
  ): ApproveCallback {
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
        const settle = () => {
          signal?.removeEventListener("abort", onAbort);
          if (!this.waiting.delete(id)) return;
          const left = (this.perCaller.get(caller) ?? 1) - 1;
          if (left === 0) this.perCaller.delete(caller);
          else this.perCaller.set(caller, left);
        };
        const onAbort = () => {
          settle();
          reject(signal?.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        this.waiting.set(id, (answer) => {
          settle();
          resolve(answer);
        });
        announce({ type: "approval", id, callId: request.callId, tool: request.tool.name, server: request.tool.server, arguments: request.arguments });
      });
  }

  /** False when no approval with that id is waiting (answered, its turn gone, or another replica's). */
  answer(id: string, answer: ApprovalAnswer): boolean {
    const resolve = this.waiting.get(id);
    resolve?.(answer);
    return resolve !== undefined;
  }
}

export const WebTurnSchema = z.strictObject({
  model: z.string().min(1),
  history: z.array(MessageSchema).max(10_000),
  input: z.string().min(1),
});

export const ApprovalAnswerSchema = z.strictObject({
  id: z.string().min(1),
  decision: z.enum(["allow-once", "allow-session", "deny"]),
});

export const TranscriptRequestSchema = z.strictObject({
  model: z.string().optional(),
  messages: z.array(MessageSchema).max(10_000),
});

export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new HttpError(400, `${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"}`, "invalid_request_error");
}

/**
 * One turn of the web chat, streamed as the agent's events (server-sent events, one JSON
 * object each); the last is `turn-end` with the messages the turn added.
 */
export async function streamWebTurn(
  turn: z.infer<typeof WebTurnSchema>,
  context: { res: ServerResponse; signal: AbortSignal; runner: TurnRunner; model: ChatModel; approvals: PendingApprovals; caller: string },
): Promise<void> {
  const { res } = context;
  const send = (event: unknown) => {
    if (!res.writableEnded) res.write(`data: ${JSON.stringify(event)}\n\n`);
  };
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" });
  send({ type: "tool-mode", mode: context.runner.toolMode(context.model) });
  await context.runner.run(
    { system: "", history: turn.history, input: turn.input, clientTools: [] },
    {
      model: context.model,
      signal: context.signal,
      ask: context.approvals.asker(context.caller, send),
      onEvent: (event: AgentEvent) => {
        if (event.type === "tool-call-finished") {
          // The page shows the summary; the whole result (images too) is in turn-end's messages.
          const { result: _whole, ...shown } = event;
          send(shown);
          return;
        }
        if (event.type !== "turn-end") {
          send(event);
          return;
        }
        const { turn: result } = event;
        send({
          type: "turn-end",
          status: result.status,
          stopReason: result.stopReason,
          usage: result.usage,
          messages: result.messages,
          toolCalls: result.toolCalls.map(({ id, name, outcome, isError, content }) => ({ id, name, outcome, isError, content })),
          ...(result.error ? { error: result.error } : {}),
        });
      },
    },
  );
  res.end();
}

export function sendTranscript(res: ServerResponse, request: z.infer<typeof TranscriptRequestSchema>): void {
  res.writeHead(200, { "content-type": "application/x-ndjson; charset=utf-8", "content-disposition": 'attachment; filename="toolbridge-transcript.jsonl"' });
  res.end(serializeTranscript(request.messages, request.model ? { model: request.model } : {}));
}
