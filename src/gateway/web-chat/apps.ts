import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { BlockList, isIPv4 } from "node:net";
import { z } from "zod";
import { callFingerprint } from "../../agent/approval.js";
import type { CallerPolicy } from "../../host/caller-policy.js";
import type { CallToolResult } from "../../mcp/types.js";
import { HttpError } from "../http.js";
import type { TurnRunner } from "../turns.js";
import type { WebChatHub } from "./mcp.js";
import type { WebGrants } from "./grants.js";
import type { ApprovalQuestion } from "./questions.js";

/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension): a tool's `ui://` HTML resource, served
 * at `/app-frames/<id>` for a sandboxed frame of the page (scripts, never same-origin) under the
 * content security policy the resource declares (no wildcard hosts, nothing local unless the
 * config says so); and the app's own tool calls, judged by the caller policy like every route's.
 * An app opens only where its tool's result was shown, in a turn of the same client; its calls
 * name its frame, and reach only its own server. What is held for an app belongs to the page that shows it
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
/** Clients, and apps per client, remembered as shown in a turn (an app's frame opens only for one of them). */
const MAX_SHOWN_CLIENTS = 1024;
const MAX_SHOWN_PER_CLIENT = 256;

/** The page's own id: 128 random bits, made in the page when it loads. */
const PageIdSchema = z.string().regex(/^[0-9a-f]{32}$/, "a page id is 32 hex digits");

export const AppFrameRequestSchema = z.strictObject({ page: PageIdSchema, uri: z.string().startsWith("ui://").max(2000), server: z.string().min(1).max(200) });

export const ClosePageSchema = z.strictObject({ page: PageIdSchema });

export const AppToolCallSchema = z.strictObject({
  page: PageIdSchema,
  /** The app's frame (the id in its /app-frames/ path): the call is that app's, and reaches its server only. */
  frame: z.uuid(),
  name: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).default({}),
  /** The person's answer when the page asked them: the question's id, and the fingerprint of what they were shown. */
  approved: z.strictObject({ id: z.uuid(), fingerprint: z.string().min(1).max(100) }).optional(),
});

export interface Frame {
  html: string;
  policy: string;
  expires: number;
  page: string;
  /** The server whose `ui://` resource this is: the app's tool calls go to it alone. */
  server: string;
}

/** What is held for one page: its apps' frames, and their tool calls running (each stopped when the page goes). */
interface AppPage {
  caller: string;
  frames: Set<string>;
  calls: Set<AbortController>;
}

/** Addresses of this machine and its networks: loopback, private (RFC 1918, RFC 6598), link-local, unspecified. */
const LOCAL_ADDRESSES = new BlockList();
for (const [network, prefix] of [["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12], ["192.168.0.0", 16]] as const) LOCAL_ADDRESSES.addSubnet(network, prefix, "ipv4");
/** Names that mean this machine or a local network: localhost, mDNS, the reserved home and internal suffixes. */
const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa", ".lan", ".intranet"];

/** Why a declared origin is refused (a wildcard host, or a local one), or undefined. The URL parser's host is judged: `http://2130706433` is 127.0.0.1. */
function localOrWide(origin: string): string | undefined {
  if (origin.includes("*")) return "a wildcard host";
  let host: string;
  try {
    host = new URL(origin).hostname;
  } catch {
    return "not a URL";
  }
  if (isIPv4(host)) return LOCAL_ADDRESSES.check(host, "ipv4") ? "a loopback, private or link-local address" : undefined;
  if (host === "localhost" || LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix)) || !host.includes(".")) return "a local name";
  return undefined;
}

/**
 * The resource's declared domains, each one origin (`https://host[:port]`); anything else is
 * dropped, and so is a wildcard or local host unless `allowLocal` (`gateway.appCspAllowLocal`),
 * each of those named in `refused`.
 */
function domains(value: unknown, allowLocal: boolean, refused: string[]): string[] {
  if (!Array.isArray(value)) return [];
  const kept: string[] = [];
  for (const entry of value.slice(0, MAX_DOMAINS)) {
    if (typeof entry !== "string" || !/^https?:\/\/[\w*.-]+(:\d{1,5})?$/.test(entry)) continue;
    const why = allowLocal ? undefined : localOrWide(entry);
    if (why) refused.push(`${entry} (${why}; gateway.appCspAllowLocal allows it)`);
    else kept.push(entry);
  }
  return kept;
}

/**
 * The frame's policy: the extension's default (inline code only, nothing fetched), widened by
 * exactly what the resource declares and may have; `refused` gets each declared origin left out.
 */
export function appPolicy(csp: unknown, allowLocal = false, refused: string[] = []): string {
  const declared = (csp ?? {}) as Record<string, unknown>;
  const resources = domains(declared.resourceDomains, allowLocal, refused).join(" ");
  const connect = domains(declared.connectDomains, allowLocal, refused).join(" ");
  const frames = domains(declared.frameDomains, allowLocal, refused).join(" ");
  const base = domains(declared.baseUriDomains, allowLocal, refused).join(" ");
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

/**
 * The apps each client was shown: a tool with an app ran in a turn of theirs (by server and
 * `ui://` address), a bounded few per client, the least recently shown forgotten first.
 */
export class ShownApps {
  private readonly shown = new Map<string, Set<string>>();

  record(caller: string, server: string, uri: string): void {
    const apps = this.shown.get(caller) ?? new Set<string>();
    this.shown.delete(caller);
    this.shown.set(caller, apps);
    const key = `${server}\u0000${uri}`;
    apps.delete(key);
    apps.add(key);
    if (apps.size > MAX_SHOWN_PER_CLIENT) apps.delete(apps.values().next().value as string);
    if (this.shown.size > MAX_SHOWN_CLIENTS) this.shown.delete(this.shown.keys().next().value as string);
  }

  has(caller: string, server: string, uri: string): boolean {
    return this.shown.get(caller)?.has(`${server}\u0000${uri}`) === true;
  }
}

/** App documents handed out by id, a bounded few at a time, each for a while, and what each page with apps holds. */
export class AppFrames {
  private readonly frames = new Map<string, Frame>();
  /** Least recently used first. */
  private readonly pages = new Map<string, AppPage>();

  /** `allowLocal`: an app's CSP may name wildcard and local hosts (`gateway.appCspAllowLocal`). */
  constructor(
    readonly shown: ShownApps,
    private readonly allowLocal: boolean,
  ) {}

  /** The frame of `request`'s app for `caller`'s page: only an app shown in a turn of `caller`'s. `refused`: the declared origins left out of its CSP. */
  async open(hub: WebChatHub, request: z.infer<typeof AppFrameRequestSchema>, caller: string): Promise<{ path: string; csp: string; refused: string[] }> {
    if (!this.shown.has(caller, request.server, request.uri)) {
      throw new HttpError(403, `${request.uri} (server ${request.server}) was not shown in a turn of yours on this gateway: an app opens beside its tool's result`, "forbidden");
    }
    const read = await hub.readResource(request.uri, request.server);
    const content = read.contents.find((item) => "text" in item && typeof item.text === "string");
    if (!content || !("text" in content)) throw new HttpError(422, `${request.uri} (server ${request.server}) has no HTML text`, "invalid_request_error");
    if (content.mimeType !== undefined && !content.mimeType.startsWith("text/html")) {
      throw new HttpError(422, `${request.uri} (server ${request.server}) is ${content.mimeType}, not ${APP_MIME_TYPE}`, "invalid_request_error");
    }
    if (content.text.length > MAX_APP_HTML_CHARS) throw new HttpError(422, `${request.uri} (server ${request.server}) is larger than ${MAX_APP_HTML_CHARS} characters`, "invalid_request_error");
    const ui = (content._meta?.ui ?? {}) as { csp?: unknown };
    const refused: string[] = [];
    const policy = appPolicy(ui.csp, this.allowLocal, refused);
    const now = Date.now();
    for (const [id, frame] of this.frames) if (frame.expires < now) this.dropFrame(id);
    while (this.frames.size >= MAX_FRAMES) this.dropFrame(this.frames.keys().next().value as string);
    const page = this.page(request.page, caller);
    const id = randomUUID();
    this.frames.set(id, { html: content.text, policy, expires: now + FRAME_TTL_MS, page: request.page, server: request.server });
    page.frames.add(id);
    return { path: `/app-frames/${id}`, csp: policy, refused };
  }

  get(id: string): Frame | undefined {
    const frame = this.frames.get(id);
    return frame && frame.expires >= Date.now() ? frame : undefined;
  }

  /** Frame `id` of `caller`'s page `pageId`, or a refusal: an app's call names a frame its page was given. */
  owned(id: string, pageId: string, caller: string): Frame {
    const frame = this.get(id);
    const page = this.pages.get(pageId);
    if (!frame || frame.page !== pageId || !page || page.caller !== caller) throw new HttpError(404, `No app frame ${id} is open on this page of yours`, "invalid_request_error", "not_found");
    return frame;
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

export type AppToolAnswer = { result: CallToolResult } | { approval: Omit<ApprovalQuestion, "callId"> };

/**
 * A tool call an app makes from its frame: only to tools of its frame's server that this
 * gateway offers; run when the caller policy allows it, or when it says ask and the person
 * answered the question issued for this very call (server, tool, definition, arguments), else
 * that question comes back.
 */
export async function callAppTool(
  context: { hub: WebChatHub; runner: TurnRunner; policy: CallerPolicy; grants: WebGrants; caller: string; frameId: string; frame: Frame },
  request: z.infer<typeof AppToolCallSchema>,
  signal: AbortSignal,
): Promise<AppToolAnswer> {
  const { frame, caller } = context;
  const tool = context.runner.offered().find((candidate) => candidate.name === request.name);
  if (!tool) throw new HttpError(404, `No tool ${request.name} is offered here`, "invalid_request_error", "not_found");
  if (tool.server !== frame.server) throw new HttpError(403, `An app of server ${frame.server} may call only its own server's tools, not ${tool.name} (server ${tool.server})`, "forbidden");
  const decision = context.policy.decide(caller, { kind: "tool", tool });
  if (decision.action === "refuse") throw new HttpError(403, `Not run: ${decision.reason}`, "forbidden");
  if (decision.action === "ask") {
    const fingerprint = callFingerprint(tool, request.arguments);
    if (!request.approved) {
      const id = context.grants.issue(caller, context.frameId, fingerprint);
      return {
        approval: { id, tool: tool.name, server: tool.server, ...(tool.title ? { title: tool.title } : {}), ...(tool.description ? { description: tool.description } : {}), ...(tool.annotations?.destructiveHint === true ? { destructive: true } : {}), fingerprint, arguments: request.arguments },
      };
    }
    const refused = context.grants.redeem(request.approved.id, caller, context.frameId, { shown: request.approved.fingerprint, now: fingerprint });
    if (refused) throw new HttpError(refused.status, refused.message, "invalid_request_error", refused.status === 404 ? "not_found" : "approval_mismatch");
  }
  return { result: await context.hub.callTool(tool.name, request.arguments, { signal }) };
}

/** The `ui://` resource of a tool's MCP App (`_meta.ui.resourceUri`, or the older flat key). */
export function appUri(meta: Record<string, unknown> | undefined): string | undefined {
  const ui = meta?.ui as { resourceUri?: unknown } | undefined;
  const uri = ui?.resourceUri ?? meta?.["ui/resourceUri"];
  return typeof uri === "string" && uri.startsWith("ui://") ? uri : undefined;
}
