import type { Message } from "../llm/types.js";

/** Conversations, kept in this browser's localStorage: nothing of them stays on the gateway. */

export interface Conversation {
  id: string;
  title: string;
  model: string;
  messages: Message[];
  updatedAt: number;
}

const STORE = "toolbridge.conversations";

export function loadConversations(): Conversation[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(STORE) ?? "[]") as unknown;
    return Array.isArray(parsed) ? (parsed as Conversation[]) : [];
  } catch {
    return [];
  }
}

export function saveConversations(conversations: readonly Conversation[]): void {
  localStorage.setItem(STORE, JSON.stringify(conversations));
}

export function newConversation(model: string): Conversation {
  return { id: crypto.randomUUID(), title: "New chat", model, messages: [], updatedAt: Date.now() };
}
