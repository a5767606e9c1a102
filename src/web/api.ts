import type { Message } from "../llm/types.js";

/** The gateway's web-chat API, as the page calls it; the API key (when the gateway has keys) is kept in this browser. */

const KEY_STORE = "toolbridge.apiKey";

export class Unauthorized extends Error {}

export interface Status {
  servers: { name: string; status: string; toolCount: number; error?: string }[];
  tools: { name: string; server: string; description?: string }[];
  models: string[];
  model: string;
  toolMode: "native" | "prompt";
  approve: string;
}

/** The events of one turn: the agent's own, plus the gateway's questions. */
export type TurnEvent =
  | { type: "tool-mode"; mode: "native" | "prompt" }
  | { type: "model-request"; iteration: number }
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  | { type: "tool-call-started"; id: string; name: string; arguments: Record<string, unknown> | string }
  | { type: "tool-call-finished"; id: string; name: string; summary: string; isError: boolean; outcome: string }
  | { type: "approval"; id: string; callId: string; tool: string; server: string; arguments: Record<string, unknown> }
  | { type: "notice"; message: string }
  | { type: "error"; error: { code: string; message: string } }
  | { type: "turn-end"; status: string; messages: Message[]; error?: { message: string } }
  | { type: "usage" | "tool-progress" };

export function apiKey(): string | undefined {
  return localStorage.getItem(KEY_STORE) ?? undefined;
}

export function setApiKey(key: string): void {
  localStorage.setItem(KEY_STORE, key);
}

async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const key = apiKey();
  const headers = new Headers(init.headers);
  if (key) headers.set("authorization", `Bearer ${key}`);
  if (init.body) headers.set("content-type", "application/json");
  const response = await fetch(path, { ...init, headers });
  if (response.status === 401) throw new Unauthorized("This gateway needs an API key.");
  if (!response.ok) {
    const body = (await response.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
    throw new Error(body?.error?.message ?? `${path}: HTTP ${response.status}`);
  }
  return response;
}

export async function fetchStatus(): Promise<Status> {
  return (await call("/api/status")).json() as Promise<Status>;
}

export async function answerApproval(id: string, decision: "allow-once" | "deny"): Promise<void> {
  await call("/api/approvals", { method: "POST", body: JSON.stringify({ id, decision }) });
}

export async function exportTranscript(model: string, messages: Message[]): Promise<string> {
  return (await call("/api/transcript", { method: "POST", body: JSON.stringify({ model, messages }) })).text();
}

/** Runs one turn; each event as it comes. */
export async function runTurn(body: { model: string; history: Message[]; input: string }, onEvent: (event: TurnEvent) => void, signal: AbortSignal): Promise<void> {
  const response = await call("/api/chat", { method: "POST", body: JSON.stringify(body), signal });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of event.split("\n")) if (line.startsWith("data: ")) onEvent(JSON.parse(line.slice(6)) as TurnEvent);
    }
  }
}
