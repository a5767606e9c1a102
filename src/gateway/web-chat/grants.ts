import { randomUUID } from "node:crypto";

/**
 * The web chat's questions outside a turn (an app's own tool call, reading a resource, getting
 * a prompt, when the policy says ask): each is issued here under a random id, for one client,
 * bound to the fingerprint of what its page is shown, for a while, and answerable once. An
 * answer counts only from that client, for that id, with the fingerprint of the thing asked
 * about as it is now; an echoed fingerprint without an issued id is nothing.
 */

const GRANT_TTL_MS = 10 * 60_000;
const MAX_GRANTS = 1024;
const MAX_GRANTS_PER_CLIENT = 32;

interface Grant {
  caller: string;
  /** What else the answer must name (an app's frame); "" when nothing. */
  scope: string;
  fingerprint: string;
  expires: number;
}

export type GrantRefusal = { status: 404 | 409; message: string };

export class WebGrants {
  /** Oldest first. */
  private readonly grants = new Map<string, Grant>();

  /** A new question's id for `caller`, about what `fingerprint` names (within `scope`). */
  issue(caller: string, scope: string, fingerprint: string): string {
    const now = Date.now();
    for (const [id, grant] of this.grants) if (grant.expires < now) this.grants.delete(id);
    const mine = [...this.grants].filter(([, grant]) => grant.caller === caller);
    // At a bound, the oldest question goes: a page that asks again keeps working, an answer to the forgotten one is refused.
    if (mine.length >= MAX_GRANTS_PER_CLIENT) this.grants.delete(mine[0]![0]);
    if (this.grants.size >= MAX_GRANTS) this.grants.delete(this.grants.keys().next().value as string);
    const id = randomUUID();
    this.grants.set(id, { caller, scope, fingerprint, expires: now + GRANT_TTL_MS });
    return id;
  }

  /**
   * Takes `caller`'s answer to question `id` (used up, match or not), given on a page that showed
   * `shown`, for what is asked `now`: undefined when it counts (both are the question's), else why not.
   */
  redeem(id: string, caller: string, scope: string, fingerprints: { shown: string; now: string }): GrantRefusal | undefined {
    const grant = this.grants.get(id);
    if (!grant || grant.caller !== caller || grant.expires < Date.now()) return { status: 404, message: `No question ${id} of yours is waiting here (each is answered once, within 10 minutes)` };
    this.grants.delete(id);
    if (grant.scope !== scope || grant.fingerprint !== fingerprints.shown || grant.fingerprint !== fingerprints.now) {
      return { status: 409, message: `Question ${id} was about something else than what is asked now (server, name, definition or arguments differ): ask again` };
    }
    return undefined;
  }
}
