import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/client";
import { registerSecret } from "../../config/redact.js";

/** What is kept for one server: its client registration and tokens, each stamped by the SDK with the issuer that gave it. */
export interface StoredAuth {
  /** The server's URL, so that `auth status` can say whose file it is. */
  serverUrl: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** When the access token expires (epoch ms), from its expires_in when it was saved. */
  expiresAt?: number;
  /** The token's lifetime (ms): a short-lived token is refreshed earlier than a long-lived one. */
  lifetimeMs?: number;
}

/**
 * Tokens and client registrations on disk: one JSON file per server (named for the server and a
 * hash of its URL, so two servers never share one), in a directory only the user can enter,
 * each file mode 0600 and replaced whole (written aside, then renamed) so a crash leaves no half file.
 */
export class TokenStore {
  constructor(readonly dir: string) {}

  file(server: string, url: string): string {
    const hash = createHash("sha256").update(url).digest("hex").slice(0, 12);
    return join(this.dir, `${server.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64)}-${hash}.json`);
  }

  read(server: string, url: string): StoredAuth {
    try {
      const stored = JSON.parse(readFileSync(this.file(server, url), "utf8")) as StoredAuth;
      if (stored.serverUrl === url) return masked(stored);
    } catch {
      // none yet, or unreadable: as good as none (a new login replaces it)
    }
    return { serverUrl: url };
  }

  write(server: string, url: string, stored: StoredAuth): void {
    masked(stored);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    const file = this.file(server, url);
    const aside = `${file}.${process.pid}.tmp`;
    writeFileSync(aside, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    renameSync(aside, file);
  }

  update(server: string, url: string, patch: (stored: StoredAuth) => StoredAuth): void {
    this.write(server, url, patch(this.read(server, url)));
  }

  /** Forgets the server's tokens and registration; false when there was nothing. */
  remove(server: string, url: string): boolean {
    const file = this.file(server, url);
    const existed = readdirSafe(this.dir).includes(file.slice(this.dir.length + 1));
    rmSync(file, { force: true });
    return existed;
  }
}

/** Every token and client secret held is masked wherever a message or a server's answer quotes it. */
function masked(stored: StoredAuth): StoredAuth {
  for (const secret of [stored.tokens?.access_token, stored.tokens?.refresh_token, stored.tokens?.id_token, stored.client?.client_secret]) registerSecret(secret);
  return stored;
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
