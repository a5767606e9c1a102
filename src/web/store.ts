import type { Message, TurnError, Usage } from "./api.js";
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

/** False when the browser refused (storage full): the caller says so rather than losing it silently. */
export function saveConversations(conversations: readonly Conversation[]): boolean {
  try {
    localStorage.setItem(STORE, JSON.stringify(conversations));
    return true;
  } catch {
    return false;
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
