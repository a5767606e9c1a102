import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { serializeTranscript, MessageSchema } from "../../agent/transcript.js";
import type { ChatModel } from "../../llm/types.js";
import { HttpError, parseBody, readJsonBody, sendJson } from "../http.js";
import type { GatewayModels } from "../models.js";
import type { ApprovalRelay, QuestionRelay } from "../state/state.js";
import type { TurnRunner } from "../turns.js";
import { CallerPolicy, type PolicySubject } from "../../host/caller-policy.js";
import { appUri, AppFrames, AppFrameRequestSchema, AppToolCallSchema, callAppTool, ClosePageSchema, sendAppFrame, ShownApps } from "./apps.js";
import { WebGrants } from "./grants.js";
import { CompleteRequestSchema, promptsView, PromptRequestSchema, ResourceRequestSchema, resourcesView, serversView, type WebChatHub } from "./mcp.js";
import { ServerQuestionAnswerSchema, WebServerQuestions } from "./server-questions.js";
import { ApprovalAnswerSchema, PendingApprovals, RunningTurns, StopSchema, streamWebTurn, WebTurnSchema } from "./turns.js";
import { shownFingerprint, type ApprovalMode, type ApprovalRules, type ServerApprovalConfig } from "../../agent/approval.js";
import type { ToolFilter } from "../../agent/tool-host.js";

/**
 * The web chat's side of the gateway: the small API the page calls (the page's own files are
 * web-page.ts's). Every route here needs the gateway's key when it has keys, except an app
 * frame (its unguessable id is the permission, handed out by an authenticated call).
 */

export type WebRoute = (req: IncomingMessage, res: ServerResponse, context: { requestId: string; signal: AbortSignal; caller: string }) => Promise<void>;

export interface WebChatOptions {
  hub: WebChatHub;
  models: GatewayModels;
  runner: TurnRunner;
  approve: ApprovalMode;
  servers: Readonly<Record<string, ServerApprovalConfig>>;
  /** The tool allow-list, as the turns apply it. */
  toolFilter?: ToolFilter;
  /** The config's allow and deny rules by pattern. */
  rules?: ApprovalRules;
  /** An app's CSP may name wildcard and local hosts (`gateway.appCspAllowLocal`). */
  appCspAllowLocal?: boolean;
  maxBytes: number;
  requireModel: (name: string) => Promise<ChatModel>;
  /** Carries an answer given on another replica to the turn waiting here (Redis); none: this process only. */
  approvals?: ApprovalRelay;
  /** The same for servers' questions. */
  questionRelay?: QuestionRelay;
  /** How long an approval waits for the person before its call is denied; DEFAULT_APPROVAL_TIMEOUT_MS unless given. */
  approvalTimeoutMs?: number;
  /** The gateway's limit of one client's requests at once, of which its turns take half. */
  maxConcurrentPerKey: number;
  /** Where the hub's servers' questions come (its elicitation and sampling handlers); none: servers are not asked in the page. */
  questions?: WebServerQuestions;
}

export const TranscriptRequestSchema = z.strictObject({
  model: z.string().optional(),
  messages: z.array(MessageSchema).max(10_000),
});

/** The web chat's API routes and what they hold between requests (approvals, running turns, log lines, app frames). */
export class WebChat {
  readonly approvals: PendingApprovals;
  private readonly questions: WebServerQuestions;
  private readonly unwatch: () => void;
  private readonly running: RunningTurns;
  private readonly shownApps = new ShownApps();
  private readonly frames: AppFrames;
  /** The one decision every route takes (as /mcp does); here a person can be asked, so "ask" becomes a question. */
  private readonly policy: CallerPolicy;
  private readonly grants = new WebGrants();

  constructor(private readonly options: WebChatOptions) {
    this.frames = new AppFrames(this.shownApps, options.appCspAllowLocal === true);
    this.policy = new CallerPolicy({ approve: options.approve, servers: options.servers, ...(options.toolFilter ? { toolFilter: options.toolFilter } : {}), ...(options.rules ? { rules: options.rules } : {}) });
    this.approvals = new PendingApprovals(options.approvals, options.approvalTimeoutMs);
    this.running = new RunningTurns(options.maxConcurrentPerKey);
    const questions = (this.questions = options.questions ?? new WebServerQuestions());
    if (options.questionRelay) questions.answeredThrough(options.questionRelay);
    this.unwatch = options.hub.on?.((event) => questions.hubEvent(event)) ?? (() => undefined);
  }

  /** An app frame by its id (GET, no key: see the class comment); false when `path` is not one. */
  sendFrame(path: string, res: ServerResponse): boolean {
    return sendAppFrame(this.frames, path, res);
  }

  routes(): Record<string, WebRoute> {
    const { hub, models, runner, maxBytes, requireModel } = this.options;
    const body = async <T>(req: IncomingMessage, schema: z.ZodType<T>) => parseBody(schema, await readJsonBody(req, maxBytes));
    return {
      "GET /api/status": async (_req, res) => {
        const primary = models.primary;
        sendJson(res, 200, {
          servers: serversView(hub),
          tools: runner.offered().map(({ name, server, title, description, inputSchema, _meta }) => ({ name, server, ...(title ? { title } : {}), ...(description ? { description } : {}), ...(appUri(_meta) ? { appUri: appUri(_meta), inputSchema } : {}) })),
          models: await models.listed(),
          model: primary.modelId,
          toolMode: runner.toolMode(primary),
          approve: this.options.approve,
          roots: hub.roots?.() ?? [],
        });
      },
      "POST /api/chat": async (req, res, { signal, caller }) => {
        const turn = await body(req, WebTurnSchema);
        await streamWebTurn(turn, { res, signal, runner, model: await requireModel(turn.model), approvals: this.approvals, questions: this.questions, running: this.running, shownApps: this.shownApps, caller });
      },
      "POST /api/stop": async (req, res, { caller }) => {
        const { id } = await body(req, StopSchema);
        sendJson(res, 200, { stopped: this.running.stop(id, caller) });
      },
      "POST /api/approvals": async (req, res, { caller }) => {
        const { id, fingerprint, ...answer } = await body(req, ApprovalAnswerSchema);
        const refused = await this.approvals.answer(id, caller, fingerprint, answer);
        if (refused) throw new HttpError(refused.status, refused.message, "invalid_request_error", refused.status === 404 ? "not_found" : "approval_mismatch");
        sendJson(res, 200, { ok: true });
      },
      "POST /api/questions": async (req, res, { caller }) => {
        const { id, ...answer } = await body(req, ServerQuestionAnswerSchema);
        const refused = await this.questions.answer(id, caller, answer);
        if (refused) throw new HttpError(refused.status, refused.message, "invalid_request_error", refused.status === 404 ? "not_found" : null);
        sendJson(res, 200, { ok: true });
      },
      "POST /api/transcript": async (req, res) => {
        const request = await body(req, TranscriptRequestSchema);
        res.writeHead(200, { "content-type": "application/x-ndjson; charset=utf-8", "content-disposition": 'attachment; filename="toolbridge-transcript.jsonl"' });
        res.end(serializeTranscript(request.messages, request.model ? { model: request.model } : {}));
      },
      "GET /api/prompts": async (_req, res) => sendJson(res, 200, { prompts: await promptsView(hub) }),
      "POST /api/prompt": async (req, res, { caller }) => {
        const { name, server, arguments: args, approved } = await body(req, PromptRequestSchema);
        const question = this.asked(caller, { kind: "prompt", server, name }, { name, server, arguments: args ?? {} }, approved);
        sendJson(res, 200, question ?? (await hub.getPrompt(name, args, server)));
      },
      "POST /api/complete": async (req, res) => {
        const { server, ...params } = await body(req, CompleteRequestSchema);
        if (!hub.complete) throw new HttpError(501, "This gateway's hub does not complete arguments", "invalid_request_error", "not_supported");
        sendJson(res, 200, await hub.complete(params, server));
      },
      "GET /api/resources": async (_req, res) => sendJson(res, 200, await resourcesView(hub)),
      "POST /api/resource": async (req, res, { caller }) => {
        const { uri, server, approved } = await body(req, ResourceRequestSchema);
        const question = this.asked(caller, { kind: "resource", server, uri }, { uri, server }, approved);
        sendJson(res, 200, question ?? (await hub.readResource(uri, server)));
      },
      "POST /api/app-frames": async (req, res, { caller }) => {
        const request = await body(req, AppFrameRequestSchema);
        sendJson(res, 200, await this.frames.open(hub, request, caller));
      },
      "POST /api/app-tool": async (req, res, { signal, caller }) => {
        const request = await body(req, AppToolCallSchema);
        const frame = this.frames.owned(request.frame, request.page, caller);
        const context = { hub, runner, policy: this.policy, grants: this.grants, caller, frameId: request.frame, frame };
        sendJson(res, 200, await this.frames.call(request.page, caller, signal, (callSignal) => callAppTool(context, request, callSignal)));
      },
      // The page is going (pagehide): what its apps hold here goes with it.
      "POST /api/app-pages/close": async (req, res, { caller }) => {
        const { page } = await body(req, ClosePageSchema);
        sendJson(res, 200, { closed: this.frames.close(page, caller) });
      },
    };
  }

  /**
   * The policy's decision on a resource or prompt for `caller`: undefined when it may be had now
   * (allowed, or the person answered this very question); else the question to put to the person
   * (`shown`: what they are shown, which the answer's fingerprint must name). A refusal is thrown.
   */
  private asked(caller: string, subject: Extract<PolicySubject, { kind: "resource" | "prompt" }>, shown: Record<string, unknown>, approved: { id: string; fingerprint: string } | undefined) {
    const decision = this.policy.decide(caller, subject);
    if (decision.action === "refuse") throw new HttpError(403, `Not served: ${decision.reason}`, "forbidden");
    if (decision.action === "allow") return undefined;
    const fingerprint = shownFingerprint([subject.kind, shown]);
    if (!approved) return { approval: { id: this.grants.issue(caller, subject.kind, fingerprint), kind: subject.kind, ...shown, fingerprint } };
    const refused = this.grants.redeem(approved.id, caller, subject.kind, { shown: approved.fingerprint, now: fingerprint });
    if (refused) throw new HttpError(refused.status, refused.message, "invalid_request_error", refused.status === 404 ? "not_found" : "approval_mismatch");
    return undefined;
  }

  /** What the page's apps hold here now (pages, frames, tool calls running), for the gateway's metrics. */
  appsHeld(): { pages: number; frames: number; calls: number } {
    return this.frames.held();
  }

  close(): void {
    this.unwatch();
  }
}
