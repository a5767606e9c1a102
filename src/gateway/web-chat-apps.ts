import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { z } from "zod";
import { ApprovalPolicy, refusalMessage, type ApprovalMode, type ApprovalRules, type ServerApprovalConfig } from "../agent/approval.js";
import type { CallToolResult } from "../mcp/types.js";
import { HttpError } from "./http.js";
import type { TurnRunner } from "./turns.js";
import type { WebChatHub } from "./web-chat-mcp.js";
import { toolFingerprint } from "./web-chat-turns.js";

/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension): a tool's `ui://` HTML resource, served
 * at `/app-frames/<id>` for a sandboxed frame of the page (scripts, never same-origin) under the
 * content security policy the resource declares; and the app's own tool calls, judged by the
 * approval policy like the model's. What is held for an app belongs to the page that shows it
 * (a random id the page makes when it loads): when the page goes (its tab closed, reloaded,
 * navigated away) it says so, and its frames and its apps' running tool calls go with it.
 */

export const APP_MIME_TYPE = "text/html;profile=mcp-app";
const MAX_FRAMES = 64;
const FRAME_TTL_MS = 30 * 60_000;
const MAX_APP_HTML_CHARS = 2_000_000;
const MAX_DOMAINS = 32;
/** Pages with apps open that are remembered at once; and per page, app tool calls running at once. */
const MAX_PAGES = 256;
const MAX_CALLS_PER_PAGE = 16;

/** The page's own id: 128 random bits, made in the page when it loads. */
const PageIdSchema = z.string().regex(/^[0-9a-f]{32}$/, "a page id is 32 hex digits");

export const AppFrameRequestSchema = z.strictObject({ page: PageIdSchema, uri: z.string().startsWith("ui://").max(2000), server: z.string().min(1).max(200) });

export const ClosePageSchema = z.strictObject({ page: PageIdSchema });

export const AppToolCallSchema = z.strictObject({
  page: PageIdSchema,
  /** The tool whose app this is: an app calls tools of its own server only. */
  appTool: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).default({}),
  /** The person's answer when the page asked them (the fingerprint of the tool they saw). */
  approved: z.strictObject({ fingerprint: z.string().min(1).max(100) }).optional(),
});

interface Frame {
  html: string;
  policy: string;
  expires: number;
  page: string;
}

/** What is held for one page: its apps' frames, and their tool calls running (each stopped when the page goes). */
interface AppPage {
  caller: string;
  frames: Set<string>;
  calls: Set<AbortController>;
}

/** The resource's declared domains, each one origin (`https://host[:port]`, wildcards in the host allowed); anything else is dropped. */
function domains(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.filter((entry): entry is string => typeof entry === "string" && /^https?:\/\/[\w*.-]+(:\d{1,5})?$/.test(entry)).slice(0, MAX_DOMAINS);
}

/** The frame's policy: the extension's default (inline code only, nothing fetched), widened by exactly what the resource declares. */
export function appPolicy(csp: unknown): string {
  const declared = (csp ?? {}) as Record<string, unknown>;
  const resources = domains(declared.resourceDomains).join(" ");
  const connect = domains(declared.connectDomains).join(" ");
  const frames = domains(declared.frameDomains).join(" ");
  const base = domains(declared.baseUriDomains).join(" ");
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`.trim(),
    `style-src 'unsafe-inline' ${resources}`.trim(),
    `img-src data: ${resources}`.trim(),
    `font-src data: ${resources}`.trim(),
    `media-src data: ${resources}`.trim(),
    `connect-src ${connect || "'none'"}`,
    `frame-src ${frames || "'none'"}`,
    `base-uri ${base || "'none'"}`,
    "form-action 'none'",
  ].join("; ");
}

/** App documents handed out by id, a bounded few at a time, each for a while, and what each page with apps holds. */
export class AppFrames {
  private readonly frames = new Map<string, Frame>();
  /** Least recently used first. */
  private readonly pages = new Map<string, AppPage>();

  async open(hub: WebChatHub, request: z.infer<typeof AppFrameRequestSchema>, caller: string): Promise<{ path: string; csp: string }> {
    const read = await hub.readResource(request.uri, request.server);
    const content = read.contents.find((item) => "text" in item && typeof item.text === "string");
    if (!content || !("text" in content)) throw new HttpError(422, `${request.uri} (server ${request.server}) has no HTML text`, "invalid_request_error");
    if (content.mimeType !== undefined && !content.mimeType.startsWith("text/html")) {
      throw new HttpError(422, `${request.uri} (server ${request.server}) is ${content.mimeType}, not ${APP_MIME_TYPE}`, "invalid_request_error");
    }
    if (content.text.length > MAX_APP_HTML_CHARS) throw new HttpError(422, `${request.uri} (server ${request.server}) is larger than ${MAX_APP_HTML_CHARS} characters`, "invalid_request_error");
    const ui = (content._meta?.ui ?? {}) as { csp?: unknown };
    const policy = appPolicy(ui.csp);
    const now = Date.now();
    for (const [id, frame] of this.frames) if (frame.expires < now) this.dropFrame(id);
    while (this.frames.size >= MAX_FRAMES) this.dropFrame(this.frames.keys().next().value as string);
    const page = this.page(request.page, caller);
    const id = randomUUID();
    this.frames.set(id, { html: content.text, policy, expires: now + FRAME_TTL_MS, page: request.page });
    page.frames.add(id);
    return { path: `/app-frames/${id}`, csp: policy };
  }

  get(id: string): Frame | undefined {
    const frame = this.frames.get(id);
    return frame && frame.expires >= Date.now() ? frame : undefined;
  }

  /** Runs an app's tool call of page `pageId`; it is stopped when the page goes (as when its request's connection does). */
  async call<T>(pageId: string, caller: string, signal: AbortSignal, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const page = this.page(pageId, caller);
    if (page.calls.size >= MAX_CALLS_PER_PAGE) throw new HttpError(429, `Too many app tool calls running for this page (at most ${MAX_CALLS_PER_PAGE})`, "rate_limit_error", "concurrency_limit");
    const controller = new AbortController();
    page.calls.add(controller);
    try {
      return await run(AbortSignal.any([signal, controller.signal]));
    } catch (error) {
      if (controller.signal.aborted) throw new HttpError(410, "The app's page closed; its tool call was stopped", "invalid_request_error", "page_closed");
      throw error;
    } finally {
      page.calls.delete(controller);
      this.forgetIfIdle(pageId, page);
    }
  }

  /** The page of `caller` went: its frames are dropped and its apps' running calls stopped. False when nothing was held for it. */
  close(pageId: string, caller: string): boolean {
    const page = this.pages.get(pageId);
    if (!page || page.caller !== caller) return false;
    this.pages.delete(pageId);
    for (const id of page.frames) this.frames.delete(id);
    for (const controller of page.calls) controller.abort(new Error("the page of the app closed"));
    return true;
  }

  /** What is held now, for the gateway's metrics. */
  held(): { pages: number; frames: number; calls: number } {
    let calls = 0;
    for (const page of this.pages.values()) calls += page.calls.size;
    return { pages: this.pages.size, frames: this.frames.size, calls };
  }

  /** Page `id` of `caller`, remembered from its first app on; at the bound, the least recently used page with no call running is forgotten. */
  private page(id: string, caller: string): AppPage {
    const known = this.pages.get(id);
    if (known && known.caller !== caller) throw new HttpError(403, "That page id is another client's", "forbidden");
    if (known) {
      this.pages.delete(id);
      this.pages.set(id, known);
      return known;
    }
    if (this.pages.size >= MAX_PAGES) {
      const idle = [...this.pages].find(([, page]) => page.calls.size === 0);
      if (!idle) throw new HttpError(503, `Too many pages with app tool calls running on this gateway (at most ${MAX_PAGES})`, "service_unavailable", "busy");
      this.close(idle[0], idle[1].caller);
    }
    const page: AppPage = { caller, frames: new Set(), calls: new Set() };
    this.pages.set(id, page);
    return page;
  }

  private dropFrame(id: string): void {
    const frame = this.frames.get(id);
    this.frames.delete(id);
    const page = frame && this.pages.get(frame.page);
    if (!frame || !page) return;
    page.frames.delete(id);
    this.forgetIfIdle(frame.page, page);
  }

  private forgetIfIdle(id: string, page: AppPage): void {
    if (this.pages.get(id) === page && page.frames.size === 0 && page.calls.size === 0) this.pages.delete(id);
  }
}

export function sendAppFrame(frames: AppFrames, path: string, res: ServerResponse): boolean {
  const match = /^\/app-frames\/([0-9a-f-]{36})$/.exec(path);
  if (!match) return false;
  const frame = frames.get(match[1] as string);
  if (!frame) throw new HttpError(404, "No such app frame (they last 30 minutes)", "invalid_request_error", "not_found");
  // `sandbox` in the header too: opened on its own, the document still gets an opaque origin.
  res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": `${frame.policy}; sandbox allow-scripts allow-forms`, "x-content-type-options": "nosniff", "cache-control": "no-store", "referrer-policy": "no-referrer" });
  res.end(frame.html);
  return true;
}

export type AppToolAnswer = { result: CallToolResult } | { approval: { tool: string; server: string; title?: string; description?: string; fingerprint: string; arguments: Record<string, unknown> } };

/**
 * A tool call an app makes: only to tools of its own server that this gateway offers; run when
 * the policy allows it or the person approved this very definition, else the question comes back.
 */
export async function callAppTool(hub: WebChatHub, runner: TurnRunner, settings: { approve: ApprovalMode; servers: Readonly<Record<string, ServerApprovalConfig>>; rules?: ApprovalRules }, request: z.infer<typeof AppToolCallSchema>, signal: AbortSignal): Promise<AppToolAnswer> {
  const offered = runner.offered();
  const owner = offered.find((tool) => tool.name === request.appTool);
  const tool = offered.find((candidate) => candidate.name === request.name);
  if (!owner || !tool) throw new HttpError(404, `No tool ${!owner ? request.appTool : request.name} is offered here`, "invalid_request_error", "not_found");
  if (tool.server !== owner.server) throw new HttpError(403, `The app of ${owner.name} (server ${owner.server}) may call only its own server's tools, not ${tool.name} (server ${tool.server})`, "forbidden");
  const fingerprint = toolFingerprint(tool);
  const verdict = new ApprovalPolicy({ mode: settings.approve, servers: settings.servers, ...(settings.rules ? { rules: settings.rules } : {}) }).verdict(tool);
  // A deny rule is not asked about: nobody's approval runs it.
  if (!verdict.allowed && verdict.denied !== undefined) {
    return { result: { content: [{ type: "text", text: refusalMessage(tool.name, { run: false, asked: false, rule: verdict.denied }) }], isError: true } };
  }
  const allowed = verdict.allowed || request.approved?.fingerprint === fingerprint;
  if (!allowed) {
    return { approval: { tool: tool.name, server: tool.server, ...(tool.title ? { title: tool.title } : {}), ...(tool.description ? { description: tool.description } : {}), fingerprint, arguments: request.arguments } };
  }
  return { result: await hub.callTool(tool.name, request.arguments, { signal }) };
}
