import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { z } from "zod";
import { ApprovalPolicy, type ApprovalMode, type ServerApprovalConfig } from "../agent/approval.js";
import type { CallToolResult } from "../mcp/types.js";
import { HttpError } from "./http.js";
import type { TurnRunner } from "./turns.js";
import type { WebChatHub } from "./web-chat-mcp.js";
import { toolFingerprint } from "./web-chat-turns.js";

/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension): a tool's `ui://` HTML resource, served
 * at `/app-frames/<id>` for a sandboxed frame of the page (scripts, never same-origin) under the
 * content security policy the resource declares; and the app's own tool calls, judged by the
 * approval policy like the model's.
 */

export const APP_MIME_TYPE = "text/html;profile=mcp-app";
const MAX_FRAMES = 64;
const FRAME_TTL_MS = 30 * 60_000;
const MAX_APP_HTML_CHARS = 2_000_000;
const MAX_DOMAINS = 32;

export const AppFrameRequestSchema = z.strictObject({ uri: z.string().startsWith("ui://").max(2000), server: z.string().min(1).max(200) });

export const AppToolCallSchema = z.strictObject({
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

/** App documents handed out by id, a bounded few at a time, each for a while. */
export class AppFrames {
  private readonly frames = new Map<string, Frame>();

  async open(hub: WebChatHub, request: z.infer<typeof AppFrameRequestSchema>): Promise<{ path: string; csp: string }> {
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
    for (const [id, frame] of this.frames) if (frame.expires < now) this.frames.delete(id);
    while (this.frames.size >= MAX_FRAMES) this.frames.delete(this.frames.keys().next().value as string);
    const id = randomUUID();
    this.frames.set(id, { html: content.text, policy, expires: now + FRAME_TTL_MS });
    return { path: `/app-frames/${id}`, csp: policy };
  }

  get(id: string): Frame | undefined {
    const frame = this.frames.get(id);
    return frame && frame.expires >= Date.now() ? frame : undefined;
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
export async function callAppTool(hub: WebChatHub, runner: TurnRunner, settings: { approve: ApprovalMode; servers: Readonly<Record<string, ServerApprovalConfig>> }, request: z.infer<typeof AppToolCallSchema>): Promise<AppToolAnswer> {
  const offered = runner.offered();
  const owner = offered.find((tool) => tool.name === request.appTool);
  const tool = offered.find((candidate) => candidate.name === request.name);
  if (!owner || !tool) throw new HttpError(404, `No tool ${!owner ? request.appTool : request.name} is offered here`, "invalid_request_error", "not_found");
  if (tool.server !== owner.server) throw new HttpError(403, `The app of ${owner.name} (server ${owner.server}) may call only its own server's tools, not ${tool.name} (server ${tool.server})`, "forbidden");
  const fingerprint = toolFingerprint(tool);
  const allowed = new ApprovalPolicy({ mode: settings.approve, servers: settings.servers }).verdict(tool).allowed || request.approved?.fingerprint === fingerprint;
  if (!allowed) {
    return { approval: { tool: tool.name, server: tool.server, ...(tool.title ? { title: tool.title } : {}), ...(tool.description ? { description: tool.description } : {}), fingerprint, arguments: request.arguments } };
  }
  return { result: await hub.callTool(tool.name, request.arguments) };
}
