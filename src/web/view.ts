import type { ApprovalQuestion, CallToolResult, ContentPart, Message, Progress, ServerQuestion, ToolView, TurnError, TurnEvent, Usage } from "./api.js";
import { messageWith, type Attachment } from "./attachment.js";
import type { CallNote, Turn } from "./store.js";

/**
 * What the page shows of a turn: the person's message, then per model reply its reasoning,
 * text and tool calls, built either from a stored turn or, event by event, from one in progress.
 */

export interface CallView {
  id: string;
  name: string;
  arguments: unknown;
  /** Set once it ended: "ok", "denied", "tool-error", ... */
  outcome?: string;
  isError?: boolean;
  summary?: string;
  result?: string | ContentPart[];
  durationMs?: number;
  startedAt?: number;
  progress?: Progress;
  approval?: ApprovalQuestion;
  /** The whole result, for a tool with an MCP App. */
  appResult?: CallToolResult;
}

export interface Segment {
  text: string;
  reasoning: string;
  calls: CallView[];
}

export interface TurnView {
  input: string;
  attachments?: Attachment[];
  segments: Segment[];
  status: "running" | Turn["status"];
  error?: TurnError;
  usage?: Usage;
  durationMs?: number;
  /** Servers' questions waiting for the person (a turn in progress only). */
  questions?: ServerQuestion[];
  /** What the gateway said along the way (a server's request it refused, a question withdrawn). */
  notices?: string[];
}

export function viewOfTurn(turn: Turn): TurnView {
  const segments: Segment[] = [];
  const calls = new Map<string, CallView>();
  for (const message of turn.messages) {
    if (message.role === "assistant") {
      const segment: Segment = { text: message.content, reasoning: message.reasoning ?? "", calls: [] };
      for (const call of message.toolCalls ?? []) {
        const view = withNote({ id: call.id, name: call.name, arguments: parseArguments(call.arguments) }, turn.calls?.[call.id]);
        calls.set(call.id, view);
        segment.calls.push(view);
      }
      segments.push(segment);
    } else if (message.role === "tool") {
      const call = calls.get(message.toolCallId);
      if (call) {
        call.result = message.content;
        call.isError = message.isError === true;
        call.outcome ??= message.isError ? "error" : "ok";
      }
    }
  }
  return { input: turn.input, ...(turn.attachments?.length ? { attachments: turn.attachments } : {}), segments, status: turn.status, ...(turn.notices?.length ? { notices: turn.notices } : {}), ...(turn.error ? { error: turn.error } : {}), ...(turn.usage ? { usage: turn.usage } : {}), ...(turn.durationMs !== undefined ? { durationMs: turn.durationMs } : {}) };
}

function withNote(call: CallView, note: CallNote | undefined): CallView {
  if (!note) return call;
  return { ...call, ...(note.durationMs !== undefined ? { durationMs: note.durationMs } : {}), ...(note.outcome ? { outcome: note.outcome } : {}), ...(note.appResult ? { appResult: note.appResult as CallToolResult } : {}) };
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function startTurnView(input: string, attachments: Attachment[] = []): TurnView {
  return { input, ...(attachments.length ? { attachments } : {}), segments: [], status: "running" };
}

function lastSegment(view: TurnView): Segment {
  let segment = view.segments.at(-1);
  if (!segment) {
    segment = { text: "", reasoning: "", calls: [] };
    view.segments.push(segment);
  }
  return segment;
}

function findCall(view: TurnView, id: string): CallView | undefined {
  for (const segment of view.segments) for (const call of segment.calls) if (call.id === id) return call;
  return undefined;
}

/** The turn in progress after one more event (changed in place; the caller redraws). */
export function applyEvent(view: TurnView, event: TurnEvent, tools: readonly ToolView[]): void {
  switch (event.type) {
    case "model-request":
      if (view.segments.length === 0 || lastSegment(view).text !== "" || lastSegment(view).calls.length > 0) view.segments.push({ text: "", reasoning: "", calls: [] });
      return;
    case "text-delta":
      lastSegment(view).text += event.text;
      return;
    case "reasoning-delta":
      lastSegment(view).reasoning += event.text;
      return;
    case "tool-call-started":
      lastSegment(view).calls.push({ id: event.id, name: event.name, arguments: event.arguments, startedAt: Date.now() });
      return;
    case "tool-progress": {
      const call = findCall(view, event.id);
      if (call) call.progress = event.progress;
      return;
    }
    case "approval": {
      const call = findCall(view, event.callId);
      const { type: _type, ...question } = event;
      if (call) call.approval = question;
      return;
    }
    case "tool-call-finished": {
      const call = findCall(view, event.id);
      if (!call) return;
      call.outcome = event.outcome;
      call.isError = event.isError;
      call.summary = event.summary;
      call.durationMs = event.durationMs;
      call.approval = undefined;
      if (event.result) {
        call.result = event.result.content.map(toPart);
        if (tools.some((tool) => tool.name === event.name && tool.appUri)) call.appResult = event.result;
      }
      return;
    }
    case "server-question":
      view.questions = [...(view.questions ?? []), event.question];
      return;
    case "server-question-closed":
      if (view.questions?.some((question) => question.id === event.id)) {
        view.questions = view.questions.filter((question) => question.id !== event.id);
        view.notices = [...(view.notices ?? []), event.reason];
      }
      return;
    case "notice":
      // The agent's own notices (a switch to prompt mode) stay out of the conversation; a server's refused question is shown.
      if (event.code === "server-question") view.notices = [...(view.notices ?? []), event.message];
      return;
    case "usage":
      view.usage = event.usage;
      return;
    case "error":
      view.error = event.error;
      return;
    default:
      return;
  }
}

function toPart(block: CallToolResult["content"][number]): ContentPart {
  if (block.type === "text") return { type: "text", text: block.text };
  if (block.type === "image") return { type: "image", data: block.data, mimeType: block.mimeType };
  if (block.type === "audio") return { type: "audio", data: block.data, mimeType: block.mimeType };
  if (block.type === "resource") return { type: "text", text: "text" in block.resource ? block.resource.text : `[resource ${block.resource.uri}]` };
  return { type: "text", text: `[${block.type} ${"uri" in block ? block.uri : ""}]` };
}

/** What the page stores of a tool call beyond its messages. */
export function notesOf(view: TurnView): Record<string, CallNote> {
  const notes: Record<string, CallNote> = {};
  for (const segment of view.segments) {
    for (const call of segment.calls) {
      notes[call.id] = { ...(call.durationMs !== undefined ? { durationMs: call.durationMs } : {}), ...(call.outcome ? { outcome: call.outcome } : {}), ...(call.appResult ? { appResult: call.appResult } : {}) };
    }
  }
  return notes;
}

/** A turn whose stream broke before its end: what arrived, as messages (the text only; calls without results are dropped). */
export function messagesOf(view: TurnView): Message[] {
  const text = view.segments.map((segment) => segment.text).join("");
  return [{ role: "user", content: messageWith(view.input, view.attachments) }, ...(text ? [{ role: "assistant" as const, content: text }] : [])];
}

/** The whole answer's text, as the copy button copies it. */
export function answerText(view: TurnView): string {
  return view.segments.map((segment) => segment.text).filter(Boolean).join("\n\n");
}
