import { randomBytes } from "node:crypto";
import { createPrivateKeyJwtAuth, UnauthorizedError } from "@modelcontextprotocol/client";
import type { AddClientAuthentication, OAuthClientProvider, OAuthDiscoveryState, OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/client";
import type { OAuthConfig } from "../../config/oauth.js";
import { registerSecret } from "../../config/redact.js";
import type { TokenStore } from "./token-store.js";

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
  private expectedState: string | undefined;

  constructor(
    readonly server: string,
    readonly url: string,
    private readonly settings: OAuthConfig,
    private readonly store: TokenStore,
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

  get machine(): boolean {
    return this.settings.grantType === "client_credentials";
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
      grant_types: this.machine ? ["client_credentials"] : ["authorization_code", "refresh_token"],
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

  clientInformation(): OAuthClientInformationMixed | undefined {
    const { clientId, clientSecret } = this.settings;
    if (clientId !== undefined) return { client_id: clientId, ...(clientSecret !== undefined ? { client_secret: clientSecret } : {}) };
    const registered = this.registered();
    // Outside a login with nothing to refresh, registering would only be wasted: the user must log in first.
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
    return new URLSearchParams({ grant_type: "client_credentials", ...(scope ? { scope } : {}) });
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "verifier" || scope === "all") this.verifier = undefined;
    if (scope === "discovery" || scope === "all") this.discovery = undefined;
    if (scope === "all" || scope === "client" || scope === "tokens") {
      this.store.update(this.server, this.url, ({ client, tokens, expiresAt, lifetimeMs, ...stored }) => ({
        ...stored,
        ...(scope === "tokens" && client ? { client } : {}),
        ...(scope === "client" && tokens ? { tokens, expiresAt, lifetimeMs } : {}),
      }));
    }
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  private registered(): (OAuthClientInformationMixed & { redirect_uris?: string[] }) | undefined {
    return this.store.read(this.server, this.url).client as (OAuthClientInformationMixed & { redirect_uris?: string[] }) | undefined;
  }
}
