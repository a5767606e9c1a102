import type { ContentPart, Message, Usage } from "../llm/types.js";
import type { ApprovalQuestion, ServerQuestion, ServerQuestionAnswer } from "../gateway/web-chat/questions.js";
import type { CallToolResult } from "../mcp/types.js";
import { forgetGrants } from "./session-grants.js";

/** The gateway's web-chat API, as the page calls it; the API key (when the gateway has keys) is kept in this browser. */

const KEY_STORE = "toolbridge.apiKey";
/** This page's id (128 random bits, made as it loads): what the gateway holds for its MCP Apps is kept under it, and freed when it goes. */
const PAGE_ID = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
/** Whether this page opened an app (else the gateway holds nothing for it, and is not told when it goes). */
let appsOpened = false;

export class Unauthorized extends Error {}

export interface ServerView {
  name: string;
  status: string;
  toolCount: number;
  resourceCount: number;
  promptCount: number;
  serverName?: string;
  serverVersion?: string;
  error?: string;
  log: string[];
}

export interface ToolView {
  name: string;
  server: string;
  title?: string;
  description?: string;
  /** The tool's MCP App (`_meta.ui.resourceUri`). */
  appUri?: string;
  /** Of a tool with an app: its input schema, which the app is told with the rest of the tool. */
  inputSchema?: Record<string, unknown>;
}

export interface Status {
  servers: ServerView[];
  tools: ToolView[];
  models: { id: string; contextLength?: number }[];
  model: string;
  toolMode: "native" | "prompt";
  approve: string;
  roots: { uri: string; name?: string }[];
}

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface TurnError {
  code?: string;
  message: string;
}

/** The events of one turn: the agent's own, plus the gateway's. */
export type TurnEvent =
  | { type: "turn-start"; id: string; mode: "native" | "prompt" }
  | { type: "model-request"; iteration: number }
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  | { type: "tool-call-started"; id: string; name: string; arguments: Record<string, unknown> | string }
  | { type: "tool-progress"; id: string; name: string; progress: Progress }
  | { type: "tool-call-finished"; id: string; name: string; summary: string; isError: boolean; outcome: string; durationMs: number; result?: CallToolResult }
  | ({ type: "approval" } & ApprovalQuestion)
  | { type: "server-question"; question: ServerQuestion }
  | { type: "server-question-closed"; id: string; reason: string }
  | { type: "usage"; usage: Usage }
  | { type: "notice"; code?: string; message: string }
  | { type: "error"; error: TurnError }
  | { type: "turn-end"; status: "completed" | "aborted" | "failed"; messages: Message[]; usage?: Usage; durationMs?: number; error?: TurnError };

/** `allow-session`: this tool for the session; `allow-server`: every tool of its server for the session. */
export type ApprovalDecision = { decision: "allow-once" } | { decision: "allow-session" } | { decision: "allow-server" } | { decision: "deny"; reason?: string };

export interface PromptView {
  name: string;
  server: string;
  title?: string;
  description?: string;
  arguments: { name: string; description?: string; required: boolean }[];
}

export interface ResourceView {
  uri: string;
  name: string;
  server: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export type { ApprovalQuestion, CallToolResult, ContentPart, Message, ServerQuestion, ServerQuestionAnswer, Usage };

export function apiKey(): string | undefined {
  return localStorage.getItem(KEY_STORE) ?? undefined;
}

export function setApiKey(key: string): void {
  // What was allowed for this session was allowed to the key before: another key asks again.
  if (key !== apiKey()) forgetGrants();
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

async function post<T>(path: string, body: unknown): Promise<T> {
  return (await call(path, { method: "POST", body: JSON.stringify(body) })).json() as Promise<T>;
}

export async function fetchStatus(): Promise<Status> {
  return (await call("/api/status")).json() as Promise<Status>;
}

/** The answer names what was shown (the question's fingerprint): the gateway refuses it for anything else. */
export async function answerApproval(id: string, fingerprint: string, answer: ApprovalDecision): Promise<void> {
  await post("/api/approvals", { id, fingerprint, ...answer });
}

/** A server's question answered; a form the gateway finds invalid is refused with the reason (the question still waits). */
export async function answerQuestion(id: string, answer: ServerQuestionAnswer): Promise<void> {
  await post("/api/questions", { id, ...answer });
}

export async function stopTurn(id: string): Promise<boolean> {
  return (await post<{ stopped: boolean }>("/api/stop", { id })).stopped;
}

export async function exportTranscript(model: string, messages: Message[]): Promise<string> {
  return (await call("/api/transcript", { method: "POST", body: JSON.stringify({ model, messages }) })).text();
}

export async function fetchPrompts(): Promise<PromptView[]> {
  return (await (await call("/api/prompts")).json() as { prompts: PromptView[] }).prompts;
}

/** What the gateway asks before it reads a resource or gets a prompt the policy does not allow unasked. */
export type ReadQuestion = { id: string; fingerprint: string; server: string } & ({ kind: "resource"; uri: string } | { kind: "prompt"; name: string; arguments: Record<string, string> });

/** Asks the person; true when they allow it. */
export type AskToRead = (question: ReadQuestion) => Promise<boolean>;

/** A read the gateway may first ask about: asked through `ask`, sent again with the answer; undefined when the person said no. */
async function readAsked<T extends object>(path: string, body: Record<string, unknown>, ask: AskToRead): Promise<T | undefined> {
  const first = await post<T | { approval: ReadQuestion }>(path, body);
  if (!("approval" in first)) return first;
  if (!(await ask(first.approval))) return undefined;
  const again = await post<T | { approval: ReadQuestion }>(path, { ...body, approved: { id: first.approval.id, fingerprint: first.approval.fingerprint } });
  if ("approval" in again) throw new Error(`${path}: asked again after the answer`);
  return again;
}

export async function getPrompt(prompt: PromptView, args: Record<string, string>, ask: AskToRead): Promise<{ messages: { role: string; content: { type: string; text?: string; resource?: { uri: string; text?: string } } }[] } | undefined> {
  return readAsked("/api/prompt", { name: prompt.name, server: prompt.server, arguments: args }, ask);
}

export async function complete(server: string, ref: { type: "ref/prompt"; name: string }, argument: { name: string; value: string }, context: Record<string, string>): Promise<string[]> {
  const answer = await post<{ completion: { values: string[] } }>("/api/complete", { server, ref, argument, context: { arguments: context } });
  return answer.completion.values.slice(0, 100);
}

export async function fetchResources(): Promise<ResourceView[]> {
  return (await (await call("/api/resources")).json() as { resources: ResourceView[] }).resources;
}

export async function readResource(resource: { uri: string; server: string }, ask: AskToRead): Promise<{ contents: { uri: string; mimeType?: string; text?: string; blob?: string }[] } | undefined> {
  return readAsked("/api/resource", resource, ask);
}

/** `refused`: the origins the app declared that its CSP leaves out (wildcard or local hosts), one line each. */
export async function openAppFrame(uri: string, server: string): Promise<{ path: string; csp: string; refused: string[] }> {
  appsOpened = true;
  return post("/api/app-frames", { page: PAGE_ID, uri, server });
}

/** The page is going: the gateway drops its apps' frames and stops their tool calls. Sent so that it outlives the page (keepalive); nothing waits for it. */
export function closeAppPage(): void {
  if (!appsOpened) return;
  call("/api/app-pages/close", { method: "POST", body: JSON.stringify({ page: PAGE_ID }), keepalive: true }).catch(() => undefined);
}

export type AppToolAnswer = { result: CallToolResult } | { approval: Omit<ApprovalQuestion, "callId"> };

/** An app's tool call from its frame (the id in the frame's path); `approved`: the question the gateway issued, as the person answered it. */
export async function callAppTool(frame: string, name: string, args: Record<string, unknown>, approved?: { id: string; fingerprint: string }): Promise<AppToolAnswer> {
  return post("/api/app-tool", { page: PAGE_ID, frame, name, arguments: args, ...(approved ? { approved } : {}) });
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
