import type { FieldValue, FormField } from "../../mcp/elicitation-fields.js";

/**
 * What the web chat's page is asked (a tool approval, a server's question), as the gateway sends it and the page reads it (src/web imports
 * this type too, so the two cannot drift). Types only: the page's bundle takes nothing from here.
 */

/**
 * A tool call waiting for the person: the tool as defined now, and the call's arguments.
 * `fingerprint` names exactly that (server, tool, definition, arguments): the page sends it back
 * with the answer, and the gateway refuses an answer whose fingerprint is not the call's.
 */
export interface ApprovalQuestion {
  id: string;
  callId: string;
  tool: string;
  server: string;
  title?: string;
  description?: string;
  /** The server marks the tool destructiveHint: true (the page says so, as the terminal does). */
  destructive?: boolean;
  fingerprint: string;
  arguments: Record<string, unknown>;
}

/**
 * A server's question during a turn of the page (its elicitation form, a page it asks the person
 * to open, its request to use the model), with the server's text already cleaned and bounded.
 */
export type ServerQuestion =
  | { kind: "form"; id: string; server: string; message: string; fields: FormField[] }
  /** `url` is exactly what opens: the parsed URL (international host names in punycode), never a cleaned copy. */
  | { kind: "url"; id: string; server: string; message: string; url: string }
  | {
      kind: "sampling";
      id: string;
      server: string;
      /** The model that would answer, and the most tokens it may write (the request's, capped as the terminal caps it). */
      model: string;
      maxTokens: number;
      systemPrompt?: string;
      /** The last messages, one line each ("user: …"); `earlier` counts those not sent. */
      messages: string[];
      earlier: number;
      tools: string[];
    };

/** The person's answer: an elicitation's action (a form's accepted content), or a sampling decision. */
export type ServerQuestionAnswer = { action: "accept"; content?: Record<string, FieldValue> } | { action: "decline" } | { action: "cancel" } | Decision;

/** A person's decision, as the agent's ApprovalAnswer (restated here: the page's type check does not reach the agent's node imports). */
export type Decision = { decision: "allow-once" } | { decision: "allow-session" } | { decision: "deny"; reason?: string };
