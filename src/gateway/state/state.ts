import type { ApprovalAnswer } from "../../agent/approval.js";
import type { ServerQuestion, ServerQuestionAnswer } from "../web-chat/questions.js";

/**
 * What the gateway keeps between requests, behind one interface with two homes: an embedded
 * store (a directory in the state directory, limits in this process) for one gateway, and Redis for
 * replicas, which then share stored responses, per-key limits, waiting approvals and servers' questions.
 */

/** One stored response of the Responses API; the conversation is the chain of `previous` links. */
export interface StoredResponse {
  id: string;
  /** The id of the caller that made it (Caller.id, its key's, not its place in the list); only it may read, continue or delete it. */
  owner: string;
  previous?: string;
  /** The response object as the client got it. */
  response: Record<string, unknown>;
  /** This request's input items (with ids). */
  input: Record<string, unknown>[];
  /** Every item this response added to the conversation, those the client was not shown included. */
  output: Record<string, unknown>[];
}

export interface ResponseStore {
  get(id: string): Promise<StoredResponse | undefined>;
  /** Kept until the store's TTL passes. Throws NotStoredError past the store's budget. */
  put(record: StoredResponse): Promise<void>;
  /** False when there was none. */
  delete(id: string): Promise<boolean>;
}

/**
 * An MCP call the gateway asked a Responses client to approve (an `mcp_approval_request` it
 * issued), as the person was shown it: an approval is honoured only for this, by this caller.
 */
export interface IssuedApproval {
  id: string;
  /** The key label of the caller it was issued to. */
  owner: string;
  server: string;
  tool: string;
  /** The tool's definition when it was asked (toolIdentity: server, name, a digest of the definition). */
  definition: string;
  arguments: string;
}

/** The approval requests the gateway issued, each taken once. */
export interface IssuedApprovals {
  /** Kept until the store's TTL passes. */
  put(approval: IssuedApproval): Promise<void>;
  /**
   * The approval issued to this caller with this id, and it is gone: a second take, on any
   * replica, finds nothing. Another caller's take neither finds it nor uses it up.
   */
  take(owner: string, id: string): Promise<IssuedApproval | undefined>;
}

/** Per-caller admission: requests running at once, and requests a minute. */
export interface CallerLimits {
  /**
   * A release function, or a refusal saying which limit was reached. Releasing may take a
   * round trip (Redis); its promise settles once the place is free for the next request.
   */
  admit(caller: string): Promise<{ release: () => void | Promise<void> } | { refused: "concurrency" | "rate" }>;
}

/**
 * Carries a person's answer, given through any replica, to the replica whose turn waits for it
 * (a web-chat approval, a server's question). `Held` is what the answering replica needs to
 * check an answer before it is carried (who may answer, what a form accepts).
 */
export interface AnswerRelay<Answer, Held = true> {
  /** `id` now waits here; `deliver` gets answers to it from any replica. */
  register(id: string, held: Held): Promise<void>;
  /** What was registered with `id` while it waits on any replica; undefined once it does not. */
  held(id: string): Promise<Held | undefined>;
  /** It no longer waits (answered, or its turn ended). */
  unregister(id: string): Promise<void>;
  /** Sends the answer to whichever replica waits; false when none does. */
  forward(id: string, answer: Answer): Promise<boolean>;
  /** Where answers for what waits here arrive. */
  onAnswer(deliver: (id: string, answer: Answer) => void): void;
}

/** An approval waits with the client whose turn asked, and the fingerprint of what its page was shown. */
export type ApprovalRelay = AnswerRelay<ApprovalAnswer, { caller: string; fingerprint: string }>;
/** A server's question waits with the client whose turn was asked, and the question as the page was shown it. */
export type QuestionRelay = AnswerRelay<ServerQuestionAnswer, { caller: string; question: ServerQuestion }>;

export interface GatewayState {
  /** For logs and errors: "directory /path", "memory", "redis://host:port". */
  readonly description: string;
  readonly responses: ResponseStore;
  readonly limits: CallerLimits;
  readonly issuedApprovals: IssuedApprovals;
  /** Absent: approvals are answered only on the replica that asked (one process). */
  readonly approvals?: ApprovalRelay;
  /** Absent: servers' questions are answered only on the replica that asked. */
  readonly questions?: QuestionRelay;
  close(): Promise<void>;
}

export interface LimitSettings {
  maxConcurrentPerKey: number;
  /** Absent: no rate limit. */
  maxRequestsPerMinute?: number;
}

/** The store cannot be reached: the request is answered 503 with this one line. */
export class StateUnavailableError extends Error {}

/**
 * The store cannot take this response (past its budget or its key's share): the answer goes out
 * all the same, saying it was not stored, as when the store is away.
 */
export class NotStoredError extends StateUnavailableError {}

/**
 * What stored responses may take: in all, and per key (the owner), so that one key cannot fill
 * the store for the others. A single response larger than the per-key share is never stored.
 */
export interface StoreBudget {
  maxBytes: number;
  maxBytesPerKey: number;
}

export const DEFAULT_STORE_BUDGET: StoreBudget = { maxBytes: 256 * 2 ** 20, maxBytesPerKey: 64 * 2 ** 20 };

export const DEFAULT_STORE_TTL_SECONDS = 7 * 24 * 3600;
