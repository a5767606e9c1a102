import type { ContentPart, Message, TurnError, Usage } from "./api.js";
import type { Attachment } from "./attachment.js";

/** Conversations, kept in this browser's localStorage: nothing of them stays on the gateway. */

/** What the page keeps of one tool call beyond its message: how long it took, and an app's whole result. */
export interface CallNote {
  durationMs?: number;
  outcome?: string;
  /** For a tool with an MCP App: the result the app is given (structuredContent and _meta included). */
  appResult?: unknown;
}

/** One exchange: what the person sent and what the turn added (their message first); after Stop, what had arrived. */
export interface Turn {
  id: string;
  /** What the person typed; the resources they attached are kept apart (the model was sent both, in `messages`). */
  input: string;
  attachments?: Attachment[];
  messages: Message[];
  status: "completed" | "aborted" | "failed";
  error?: TurnError;
  usage?: Usage;
  durationMs?: number;
  calls?: Record<string, CallNote>;
  /** What the gateway said along the way (a server's request it refused), kept with the turn. */
  notices?: string[];
}

export interface Conversation {
  id: string;
  title: string;
  model: string;
  turns: Turn[];
  updatedAt: number;
}

const STORE = "toolbridge.conversations";

export function loadConversations(): Conversation[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(STORE) ?? "[]") as unknown;
    return Array.isArray(parsed) ? parsed.filter((entry): entry is Record<string, unknown> => typeof entry === "object" && entry !== null).map(upgrade) : [];
  } catch {
    return [];
  }
}

/** Conversations stored before turns were kept: their messages, cut at each user message. */
function upgrade(stored: Record<string, unknown>): Conversation {
  const conversation = stored as unknown as Conversation & { messages?: Message[] };
  if (Array.isArray(conversation.turns)) return conversation;
  const turns: Turn[] = [];
  for (const message of conversation.messages ?? []) {
    if (message.role === "user" || turns.length === 0) {
      const input = message.role === "user" && typeof message.content === "string" ? message.content : "";
      turns.push({ id: crypto.randomUUID(), input, messages: [], status: "completed" });
    }
    turns.at(-1)!.messages.push(message);
  }
  const { messages: _old, ...rest } = conversation;
  return { ...rest, turns };
}

/**
 * The most characters of one tool result kept in this browser: localStorage holds about 5 MB in
 * all, so a result of megabytes would make the whole list unsavable. A longer one is saved cut, marked.
 */
export const MAX_KEPT_RESULT_CHARS = 256 * 1024;

/** `text` cut to the bound, with a line saying so (what was kept of how much). */
function cutText(text: string): string {
  return text.length <= MAX_KEPT_RESULT_CHARS ? text : `${text.slice(0, MAX_KEPT_RESULT_CHARS)}\n[cut when saved: ${kb(MAX_KEPT_RESULT_CHARS)} of ${kb(text.length)} kept in this browser]`;
}

function kb(chars: number): string {
  return `${(chars / 1024).toFixed(1)} kB`;
}

/** A tool result's content within the bound: text cut, binary parts past it replaced by a line. */
function cutContent(content: string | ContentPart[]): string | ContentPart[] {
  if (typeof content === "string") return cutText(content);
  return content.map((part): ContentPart => {
    if (part.type === "text") return { type: "text", text: cutText(part.text) };
    if ("data" in part && part.data.length > MAX_KEPT_RESULT_CHARS) return { type: "text", text: `[${part.mimeType} content of ${kb(part.data.length)} not kept in this browser]` };
    return part;
  });
}

/** Which results were cut: counted, so the page can say so. */
function keptTurn(turn: Turn, cut: { count: number }): Turn {
  const messages = turn.messages.map((message) => {
    if (message.role !== "tool") return message;
    const content = cutContent(message.content);
    if (JSON.stringify(content).length !== JSON.stringify(message.content).length) cut.count++;
    return { ...message, content };
  });
  const calls = turn.calls && Object.fromEntries(Object.entries(turn.calls).map(([id, note]) => {
    if (note.appResult === undefined || JSON.stringify(note.appResult).length <= MAX_KEPT_RESULT_CHARS) return [id, note];
    cut.count++;
    const { appResult: _dropped, ...rest } = note;
    return [id, rest];
  }));
  return { ...turn, messages, ...(calls ? { calls } : {}) };
}

/**
 * Saves the list, each tool result past MAX_KEPT_RESULT_CHARS cut (marked in its text; an app's
 * result past it is not kept, so its app does not open again after a reload). `saved` false when
 * the browser refused even so (storage full); `cut` counts the results cut, for the page to say.
 */
export function saveConversations(conversations: readonly Conversation[]): { saved: boolean; cut: number } {
  const cut = { count: 0 };
  const kept = conversations.map((conversation) => ({ ...conversation, turns: conversation.turns.map((turn) => keptTurn(turn, cut)) }));
  try {
    localStorage.setItem(STORE, JSON.stringify(kept));
    return { saved: true, cut: cut.count };
  } catch {
    return { saved: false, cut: cut.count };
  }
}

export function newConversation(model: string): Conversation {
  return { id: crypto.randomUUID(), title: "New chat", model, turns: [], updatedAt: Date.now() };
}

export function historyOf(turns: readonly Turn[]): Message[] {
  return turns.flatMap((turn) => turn.messages);
}

/** Conversations whose title or text has every word of `query` (case-insensitive). */
export function searchConversations(conversations: readonly Conversation[], query: string): Conversation[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...conversations];
  return conversations.filter((conversation) => {
    const text = `${conversation.title}\n${conversation.turns.map((turn) => `${turn.input}\n${turn.messages.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n")}`).join("\n")}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
}
