import { randomBytes } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";
import { createPrivateKeyJwtAuth, DpopSession, UnauthorizedError } from "@modelcontextprotocol/client";
import type {
  AddClientAuthentication,
  OAuthClientInformationContext,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from "@modelcontextprotocol/client";
import type { OAuthConfig } from "../../config/oauth.js";
import { loadDpopKey, newDpopKey } from "./dpop-key.js";
import { registerSecret } from "../../config/redact.js";
import type { TokenStore } from "./token-store.js";

/** RFC 7523's grant: a token from the workload's platform traded for an access token. */
const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/** A workload identity token is a JWT of a few KiB; a file larger than this is not one. */
const MAX_ASSERTION_BYTES = 64 * 1024;

/** Before a login has chosen its port: a loopback redirect, which RFC 8252 lets the server match on any port. */
const LOOPBACK_CALLBACK = "http://127.0.0.1/callback";

/**
 * The SDK's OAuthClientProvider for one server, backed by the token store. The SDK's `auth()`
 * does discovery, registration, PKCE, resource indicators and the token requests; this holds
 * what they produce and says how the client authenticates. It never opens a browser itself:
 * a wanted authorization is kept in `authorizationUrl` for the login to act on.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  /** The redirect of the login under way (its loopback receiver); undefined otherwise. */
  loginRedirect: string | undefined;
  /** The authorization URL the SDK asked the user to visit, during a login. */
  authorizationUrl: URL | undefined;
  /** The server wants a login: outside one, the flow stopped where it would need the user. */
  needsLogin = false;
  /**
   * A refresh cannot do (the server asked for more scope with a 403 insufficient_scope, or a login
   * is under way): the stored refresh token is hidden so that `auth()` asks for a new authorization.
   */
  steppingUp = false;
  /** What discovery found, for this process only (the server may move to another issuer). */
  discovery: OAuthDiscoveryState | undefined;
  readonly addClientAuthentication?: AddClientAuthentication;
  private verifier: string | undefined;
  private dpopSession: Promise<DpopSession> | undefined;
  private expectedState: string | undefined;

  constructor(
    readonly server: string,
    readonly url: string,
    private readonly settings: OAuthConfig,
    private readonly store: TokenStore,
    /** Finds where the server sends its logins, when this process has not found it yet (or lost it). */
    private readonly discover: () => Promise<OAuthDiscoveryState>,
  ) {
    registerSecret(settings.clientSecret);
    if (settings.privateKey !== undefined && settings.clientId !== undefined) {
      this.addClientAuthentication = createPrivateKeyJwtAuth({
        issuer: settings.clientId,
        subject: settings.clientId,
        privateKey: settings.privateKey,
        alg: settings.signingAlgorithm ?? "RS256",
      });
    }
  }

  /** A client with no browser: client_credentials or a workload's jwt_bearer. */
  get machine(): boolean {
    return this.settings.grantType === "client_credentials" || this.settings.grantType === "jwt_bearer";
  }

  get redirectUrl(): string | undefined {
    if (this.machine) return undefined;
    if (this.loginRedirect !== undefined) return this.loginRedirect;
    if (this.settings.redirectPort !== undefined) return `http://127.0.0.1:${this.settings.redirectPort}/callback`;
    const registered = this.registered()?.redirect_uris?.[0];
    return registered ?? LOOPBACK_CALLBACK;
  }

  get clientMetadataUrl(): string | undefined {
    return this.settings.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const redirect = this.redirectUrl;
    return {
      client_name: "toolbridge",
      redirect_uris: redirect === undefined ? [] : [redirect],
      grant_types: this.settings.grantType === "jwt_bearer" ? [JWT_BEARER_GRANT] : this.machine ? ["client_credentials"] : ["authorization_code", "refresh_token"],
      response_types: this.machine ? [] : ["code"],
      token_endpoint_auth_method:
        this.settings.privateKey !== undefined ? "private_key_jwt" : this.settings.clientSecret !== undefined ? "client_secret_basic" : "none",
      ...(this.settings.scopes?.length ? { scope: this.settings.scopes.join(" ") } : {}),
    };
  }

  state(): string {
    this.expectedState = randomBytes(16).toString("base64url");
    return this.expectedState;
  }

  /** The state sent with the authorization request under way, for the redirect to be checked against. */
  get pendingState(): string | undefined {
    return this.expectedState;
  }

  clientInformation(context?: OAuthClientInformationContext): OAuthClientInformationMixed | undefined {
    const { clientId, clientSecret, issuer } = this.settings;
    if (clientId !== undefined) {
      // A configured client belongs to one authorization server: its credentials go to no other.
      if (issuer !== undefined && context !== undefined && !sameIssuer(issuer, context.issuer)) {
        throw new Error(`the server now sends its logins to ${JSON.stringify(context.issuer)}, not to the configured "issuer" ${JSON.stringify(issuer)}: the configured client is not sent there`);
      }
      const stamp = issuer ?? context?.issuer;
      return { client_id: clientId, ...(clientSecret !== undefined ? { client_secret: clientSecret } : {}), ...(stamp !== undefined ? { issuer: stamp } : {}) };
    }
    const registered = this.registered();
    // Outside a login with nothing to refresh, registering would only be wasted: the user must log in first.
    // A registration with another authorization server (the server moved) is handed over all the same: the
    // SDK sees its issuer stamp, drops it and its tokens, and registers with the new one at once (SEP-2352),
    // needing no user for that; only the tokens then wait for a login.
    if (!registered && !this.machine && this.loginRedirect === undefined && this.discovery?.authorizationServerMetadata && !this.tokens()) {
      this.needsLogin = true;
      throw new UnauthorizedError("needs login");
    }
    // A registration made for another redirect (another port) would be refused: register again.
    if (registered?.redirect_uris && this.loginRedirect !== undefined && !registered.redirect_uris.includes(this.loginRedirect)) return undefined;
    return this.store.read(this.server, this.url).client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    // A client from the config stays in the config; only registrations are kept.
    if (this.settings.clientId !== undefined) return;
    this.store.update(this.server, this.url, (stored) => ({ ...stored, client }));
  }

  tokens(): OAuthTokens | undefined {
    const tokens = this.store.read(this.server, this.url).tokens;
    if (!this.steppingUp || tokens === undefined) return tokens;
    const { refresh_token: _refresh, ...usable } = tokens;
    return usable;
  }

  saveTokens(tokens: OAuthTokens): void {
    const lifetimeMs = tokens.expires_in !== undefined ? tokens.expires_in * 1000 : undefined;
    this.store.update(this.server, this.url, ({ expiresAt: _expiresAt, lifetimeMs: _lifetimeMs, ...stored }) => ({
      ...stored,
      tokens,
      ...(lifetimeMs !== undefined ? { expiresAt: Date.now() + lifetimeMs, lifetimeMs } : {}),
    }));
    this.needsLogin = false;
    this.steppingUp = false;
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
    if (this.loginRedirect === undefined) this.needsLogin = true;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error("no PKCE code verifier: the authorization was not started by this login");
    return this.verifier;
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (!this.machine) return undefined;
    if (this.settings.grantType === "jwt_bearer") return new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: this.assertion(), ...(scope ? { scope } : {}) });
    return new URLSearchParams({ grant_type: "client_credentials", ...(scope ? { scope } : {}) });
  }

  /**
   * DPoP (RFC 9449): the SDK signs a proof into each token request and presents DPoP-bound tokens
   * with a fresh proof per request. Used when configured, when the authorization server offers it,
   * or when the stored token is bound already; the key is kept with the tokens, so a later run can
   * still use them.
   */
  async dpop(): Promise<DpopSession | undefined> {
    if (this.settings.dpop === false) return undefined;
    if (this.dpopSession) return this.dpopSession;
    const stored = this.store.read(this.server, this.url);
    // RFC 9449 §5.1's metadata field; the SDK's schema keeps unknown fields without typing them.
    const metadata = this.discovery?.authorizationServerMetadata as { dpop_signing_alg_values_supported?: unknown } | undefined;
    const offered = Array.isArray(metadata?.dpop_signing_alg_values_supported) && metadata.dpop_signing_alg_values_supported.includes("ES256");
    const bound = stored.tokens?.token_type?.toLowerCase() === "dpop";
    if (this.settings.dpop !== true && !offered && !bound) return undefined;
    this.dpopSession = (async () => {
      if (stored.dpopKey) return DpopSession.create({ keyPair: await loadDpopKey(stored.dpopKey) });
      const { keyPair, stored: dpopKey } = await newDpopKey();
      this.store.update(this.server, this.url, (current) => ({ ...current, dpopKey }));
      return DpopSession.create({ keyPair });
    })();
    return this.dpopSession;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "verifier" || scope === "all") this.verifier = undefined;
    if (scope === "discovery" || scope === "all") this.discovery = undefined;
    if (scope === "all") this.dpopSession = undefined;
    if (scope === "all" || scope === "client" || scope === "tokens") {
      this.store.update(this.server, this.url, ({ client, tokens, expiresAt, lifetimeMs, dpopKey, ...stored }) => ({
        ...stored,
        ...(scope === "tokens" && client ? { client } : {}),
        ...(scope === "client" && tokens ? { tokens, expiresAt, lifetimeMs } : {}),
        ...(scope !== "all" && dpopKey ? { dpopKey } : {}),
      }));
    }
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  /** Found here, not by the SDK's auth(), for the 2025-03-26 servers it would refuse (see session.ts). */
  async discoveryState(): Promise<OAuthDiscoveryState> {
    this.discovery ??= await this.discover();
    return this.discovery;
  }

  /** The workload's identity token: as configured, or read afresh from its file (bounded). */
  private assertion(): string {
    const { assertion, assertionFile } = this.settings;
    if (assertionFile === undefined) return assertion ?? "";
    const buffer = Buffer.alloc(MAX_ASSERTION_BYTES + 1);
    let length: number;
    try {
      const fd = openSync(assertionFile, "r");
      try {
        length = readSync(fd, buffer, 0, buffer.length, 0);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      throw new Error(`cannot read the workload identity token "${assertionFile}": ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    if (length > MAX_ASSERTION_BYTES) throw new Error(`the workload identity token "${assertionFile}" is larger than ${MAX_ASSERTION_BYTES / 1024} KiB: not a token`);
    return buffer.subarray(0, length).toString("utf8").trim();
  }

  private registered(): (OAuthClientInformationMixed & { redirect_uris?: string[] }) | undefined {
    return this.store.read(this.server, this.url).client as (OAuthClientInformationMixed & { redirect_uris?: string[] }) | undefined;
  }
}

/** RFC 8414 issuers are compared as strings; one trailing slash apart, as the SDK allows. */
function sameIssuer(a: string, b: string): boolean {
  return a.replace(/\/$/, "") === b.replace(/\/$/, "");
}
