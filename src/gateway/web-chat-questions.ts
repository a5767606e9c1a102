/**
 * What the web chat's page is asked, as the gateway sends it and the page reads it (src/web imports
 * this type too, so the two cannot drift). Types only: the page's bundle takes nothing from here.
 */

/** A tool call waiting for the person: the tool as defined now (its fingerprint lets "allow for this session" bind to that definition). */
export interface ApprovalQuestion {
  id: string;
  callId: string;
  tool: string;
  server: string;
  title?: string;
  description?: string;
  fingerprint: string;
  arguments: Record<string, unknown>;
}
