import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/**
 * A caller as the gateway knows it: `id` owns what it stores (responses, web-chat pages and
 * questions) and is counted by the limits; `label` (`key-1`, ...) names it in logs. The id is
 * the key's, so revoking a key, adding one or listing them in another order on a replica does
 * not hand one client's state to another; the label follows the list and means nothing else.
 */
export interface Caller {
  id: string;
  label: string;
}

/** Every caller when the gateway has no keys (loopback only): one identity. */
export const ANONYMOUS: Caller = { id: "anonymous", label: "anonymous" };

/**
 * Who may call the gateway. Keys are kept only as SHA-256 digests and compared in constant
 * time; a caller is known by an id derived from its key, and by a label in logs.
 */
export class ApiKeys {
  private readonly digests: { caller: Caller; digest: Buffer }[];

  constructor(keys: readonly string[]) {
    this.digests = keys.map((key, index) => ({ caller: { id: callerId(key), label: `key-${index + 1}` }, digest: sha256(key) }));
  }

  get required(): boolean {
    return this.digests.length > 0;
  }

  /** The caller; ANONYMOUS when no keys are configured; undefined when the key is missing or wrong. */
  identify(headers: IncomingHttpHeaders): Caller | undefined {
    if (!this.required) return ANONYMOUS;
    // Anthropic's clients send the key as x-api-key.
    const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? "");
    const given = match?.[1] ?? headers["x-api-key"];
    if (typeof given !== "string" || given === "") return undefined;
    const digest = sha256(given);
    // Every key is compared, so the time taken does not tell which one nearly matched.
    let found: Caller | undefined;
    for (const entry of this.digests) if (timingSafeEqual(entry.digest, digest) && found === undefined) found = entry.caller;
    return found;
  }
}

/**
 * A key's caller id: SHA-256 of the key under a name of its own, in hex. Not an HMAC with a
 * secret of this installation: replicas sharing Redis must derive the same id, so the secret
 * would have to be shared too, and the one place they share is the store the ids sit beside.
 * A plain digest suffices because an API key is long and random: its digest, read from the
 * store, gives no way back to it. The prefix keeps the id apart from the digest compared above,
 * and from the digest anyone else may keep of the same key.
 */
function callerId(key: string): string {
  return `key:${createHash("sha256").update(`toolbridge caller\0${key}`, "utf8").digest("hex")}`;
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** Keys from the config and from a comma-separated environment variable, without blanks or repeats. */
export function collectKeys(fromConfig: readonly string[] | undefined, fromEnv: string | undefined): string[] {
  const keys = [...(fromConfig ?? []), ...(fromEnv ?? "").split(",")].map((key) => key.trim()).filter((key) => key !== "");
  return [...new Set(keys)];
}

/** Requests each caller may have running at once. */
export class ConcurrencyLimit {
  private readonly running = new Map<string, number>();

  constructor(readonly perCaller: number) {}

  /** A release function, or undefined when the caller is at its limit. */
  acquire(caller: string): (() => void) | undefined {
    const count = this.running.get(caller) ?? 0;
    if (count >= this.perCaller) return undefined;
    this.running.set(caller, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(caller) ?? 1) - 1;
      if (left === 0) this.running.delete(caller);
      else this.running.set(caller, left);
    };
  }
}

/** The CORS headers for a request's Origin: only for origins the config names. */
export function corsHeaders(origin: string | undefined, allowed: ReadonlySet<string>): Record<string, string> {
  if (origin === undefined || !allowed.has(origin)) return {};
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
    "access-control-allow-headers": "authorization, x-api-key, anthropic-version, anthropic-beta, content-type, mcp-session-id, mcp-protocol-version, last-event-id, x-toolbridge-tool-activity",
    "access-control-expose-headers": "mcp-session-id, x-toolbridge-shadowed-tools, x-toolbridge-ignored-tools, x-request-id",
    "access-control-max-age": "600",
    vary: "Origin",
  };
}
