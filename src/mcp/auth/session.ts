import {
  auth,
  AuthorizationServerMismatchError,
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  discoverOAuthServerInfo,
  extractWWWAuthenticateParams,
  IssuerMismatchError,
  UnauthorizedError,
  validateAuthorizationResponseIssuer,
} from "@modelcontextprotocol/client";
import type { FetchLike, OAuthDiscoveryState } from "@modelcontextprotocol/client";
import type { OAuthConfig } from "../../config/oauth.js";
import { isStdioServer, type ServerConfig } from "../../config/schema.js";
import { schemeCheckedFetch } from "../../llm/redirects.js";
import { formatMiB } from "../limits.js";
import { openableUrl } from "../openable-url.js";
import { StoredOAuthProvider } from "./provider.js";
import { startRedirectReceiver, type RedirectReceiver } from "./redirect-receiver.js";
import type { TokenStore } from "./token-store.js";

/** Opens the authorization URL for the user (a browser; in tests, a client that follows the redirect). */
export type OpenAuthorizationUrl = (url: URL) => void | Promise<void>;

export const DEFAULT_LOGIN_TIMEOUT_MS = 5 * 60 * 1000;
/** A token is refreshed this long before it expires, or at two thirds of its life if that is shorter. */
const REFRESH_MARGIN_MS = 60_000;
/** How much of a refusal's body is kept to quote. */
const QUOTED_BODY_CHARS = 300;
/** Metadata, registrations and tokens are a few KiB: a reply past this is refused, not read on. */
export const MAX_OAUTH_REPLY_BYTES = 1024 * 1024;
/** Every request to the server and its authorization server: a redirect to another scheme is refused in one line. */
const checkedFetch = schemeCheckedFetch();

/** The last 401 or 403 the server answered: what it asked for. */
interface Challenge {
  status: number;
  resourceMetadataUrl?: URL;
  scope?: string;
  error?: string;
  body: string;
}

/**
 * OAuth for one remote server: the provider the SDK's transports are given, a fetch that notes
 * what a 401/403 asks for and refreshes the token before it expires, and the browser login.
 * Tokens never leave the store and the Authorization header; nothing here logs them.
 */
export class OAuthSession {
  readonly provider: StoredOAuthProvider;
  private challenge: Challenge | undefined;
  private refreshing: Promise<unknown> | undefined;

  constructor(
    readonly server: string,
    readonly url: string,
    private readonly settings: OAuthConfig,
    private readonly store: TokenStore,
    /** Each OAuth request (discovery, registration, token) gets this long, its reply included. */
    private readonly requestTimeoutMs: number,
  ) {
    this.provider = new StoredOAuthProvider(server, url, settings, store, () => discover(url, this.challenge?.resourceMetadataUrl, this.fetch));
  }

  /** True once the server asked for an authorization that only a (new) login can give. */
  get needsLogin(): boolean {
    return this.provider.needsLogin;
  }

  /** For the transports: every request to the server and to its authorization server goes through here. */
  readonly fetch: FetchLike = async (url, init) => {
    if (this.refreshing === undefined && this.expiresSoon()) {
      this.refreshing = this.refresh().finally(() => (this.refreshing = undefined));
      await this.refreshing;
      const token = this.provider.tokens()?.access_token;
      if (token !== undefined) init = withBearer(init, token);
    }
    const response = isMcpRequest(url, init, this.url) ? await checkedFetch(url, init) : await boundedFetch(url, init, this.requestTimeoutMs);
    if (response.status === 401 || response.status === 403) {
      this.challenge = { status: response.status, ...extractWWWAuthenticateParams(response), body: await quote(response.clone()) };
      if (this.challenge.error === "insufficient_scope") this.provider.steppingUp = true;
      // A token refused: the server may have moved to another authorization server, so discover it again.
      else if (new Headers(init?.headers).has("authorization")) this.provider.invalidateCredentials("discovery");
    }
    return response;
  };

  /**
   * The browser login: a loopback receiver for the redirect, the SDK's `auth()` up to the
   * authorization URL, `open` for the user, then the code exchanged for tokens. A server that
   * asked for more scope (403 insufficient_scope) gets a new authorization for it. Machine
   * clients (client_credentials) get their token without a browser.
   */
  async login(open: OpenAuthorizationUrl, timeoutMs = DEFAULT_LOGIN_TIMEOUT_MS): Promise<void> {
    const options = () => ({
      serverUrl: this.url,
      fetchFn: this.fetch,
      ...(this.challenge?.scope !== undefined ? { scope: this.challenge.scope } : {}),
      ...(this.challenge?.resourceMetadataUrl !== undefined ? { resourceMetadataUrl: this.challenge.resourceMetadataUrl } : {}),
    });
    if (this.provider.machine) {
      await auth(this.provider, options());
      return;
    }
    // A login is asked for: a new authorization, not a refresh of what is stored (expired, revoked,
    // too little scope). What is stored stays until new tokens replace it, should this login fail.
    const { steppingUp } = this.provider;
    const receiver = await this.startReceiver();
    this.provider.loginRedirect = receiver.url;
    this.provider.steppingUp = true;
    this.provider.authorizationUrl = undefined;
    // Discovered afresh: the server may have moved to another authorization server, where the
    // registration and tokens of the old one (stamped with its issuer) are not used.
    this.provider.discovery = undefined;
    try {
      // Checked before the SDK's auth() registers a client there: it refuses a list without S256, not a missing list.
      refuseWithoutPkce(await this.provider.discoveryState());
      if ((await auth(this.provider, options())) === "AUTHORIZED") return;
      // The code is redeemed where it was asked for (SEP-2352), even if a refused token meanwhile had discovery done again.
      const asked = this.provider.discovery;
      // Set by auth() through the provider (the assignment above narrows it for the compiler only).
      const authorizationUrl = this.provider.authorizationUrl as URL | undefined;
      if (authorizationUrl === undefined) throw new UnauthorizedError("the authorization server gave no authorization URL");
      // The metadata names the page; only a web page is opened (CVE-2025-6514: a `file:` or an
      // app's scheme would run something on this machine).
      const openable = openableUrl(authorizationUrl.href);
      if (!openable.ok) throw new Error(`the authorization server's login page was not opened: ${openable.reason}`);
      const callback = receiver.callback(this.provider.pendingState, timeoutMs);
      await open(new URL(openable.href));
      const query = await callback;
      const code = query.get("code");
      const iss = query.get("iss") ?? undefined;
      if (!code) throw this.refusal(query);
      // The SDK checks `iss` against the issuer it asked (RFC 9207) before the code is redeemed.
      this.provider.discovery = asked;
      await auth(this.provider, { ...options(), authorizationCode: code, ...(iss !== undefined ? { iss } : {}) });
      this.challenge = undefined;
    } catch (error) {
      this.provider.steppingUp = steppingUp;
      throw issuerRefusal(error) ?? error;
    } finally {
      this.provider.loginRedirect = undefined;
      await receiver.close();
    }
  }

  /** Whether what failed needs the user to log in (again). */
  wantsLogin(error: unknown): boolean {
    return this.needsLogin || error instanceof UnauthorizedError;
  }

  /**
   * One line for a failure to reach the server that comes from authentication, else undefined:
   * a login to do, or a 401 from a server that offers no OAuth (then `headers` is the way).
   */
  describeFailure(error: unknown): string | undefined {
    const refused = issuerRefusal(error);
    if (refused) return refused.message;
    if (this.wantsLogin(error)) return "needs login";
    const challenge = this.challenge;
    if (challenge?.status !== 401 || this.provider.discovery?.authorizationServerMetadata !== undefined) return undefined;
    return authenticationRequired(challenge.status, challenge.body, "it offers no OAuth login");
  }

  /**
   * The error of a redirect that brought no code. Its `iss` is checked first (RFC 9207): the words of
   * an answer that did not come from the authorization server asked are not repeated.
   */
  private refusal(query: URLSearchParams): Error {
    const metadata = this.provider.discovery?.authorizationServerMetadata;
    validateAuthorizationResponseIssuer({
      iss: query.get("iss") ?? undefined,
      expectedIssuer: metadata?.issuer,
      issParameterSupported: metadata?.authorization_response_iss_parameter_supported === true,
    });
    const why = [query.get("error"), query.get("error_description")].filter(Boolean).join(": ");
    return new Error(`the authorization server refused the login${why ? `: ${why.slice(0, QUOTED_BODY_CHARS)}` : ""}`);
  }

  /**
   * The configured port, else the port the stored registration names (so that it still fits),
   * else any: a registration made for another port is then replaced.
   */
  private async startReceiver(): Promise<RedirectReceiver> {
    if (this.settings.redirectPort !== undefined) return startRedirectReceiver(this.settings.redirectPort);
    const registered = Number(new URL(this.provider.redirectUrl ?? "http://127.0.0.1/").port);
    if (registered > 0) {
      const receiver = await startRedirectReceiver(registered).catch(() => undefined);
      if (receiver) return receiver;
    }
    return startRedirectReceiver(0);
  }

  private expiresSoon(): boolean {
    const stored = this.store.read(this.server, this.url);
    if (stored.tokens?.refresh_token === undefined || stored.expiresAt === undefined) return false;
    const margin = Math.min(REFRESH_MARGIN_MS, (stored.lifetimeMs ?? 0) / 3);
    return Date.now() >= stored.expiresAt - margin;
  }

  /** The SDK's auth() refreshes when there is a refresh token; one it cannot use leaves needsLogin set. */
  private async refresh(): Promise<void> {
    await auth(this.provider, {
      serverUrl: this.url,
      fetchFn: this.fetch,
      ...(this.challenge?.resourceMetadataUrl !== undefined ? { resourceMetadataUrl: this.challenge.resourceMetadataUrl } : {}),
    }).catch(() => undefined);
  }
}

/**
 * The OAuth session of a remote server, unless it is given its credentials in `headers`
 * (an Authorization header of its own wins; OAuth would replace it).
 */
export function oauthSessionFor(name: string, config: ServerConfig, store: TokenStore, requestTimeoutMs: number): OAuthSession | undefined {
  if (isStdioServer(config)) return undefined;
  if (Object.keys(config.headers ?? {}).some((header) => header.toLowerCase() === "authorization")) return undefined;
  return new OAuthSession(name, config.url, config.oauth ?? {}, store, requestTimeoutMs);
}

/**
 * Where the server sends its logins, found as the SDK's auth() finds it (RFC 9728, then RFC 8414 or
 * OpenID), but for one case the SDK refuses: a 2025-03-26 server, which has no protected-resource
 * metadata, and whose authorization server metadata at the server's own root names another issuer
 * than that root. That revision knew no issuer check (the metadata comes from the server's own
 * origin); every other issuer that does not match is still refused.
 */
async function discover(serverUrl: string, resourceMetadataUrl: URL | undefined, fetchFn: FetchLike): Promise<OAuthDiscoveryState> {
  const where = resourceMetadataUrl ? { resourceMetadataUrl } : {};
  try {
    const found = await discoverOAuthServerInfo(serverUrl, { ...where, fetchFn });
    return { ...found, authorizationServerUrl: String(found.authorizationServerUrl), ...(resourceMetadataUrl ? { resourceMetadataUrl: resourceMetadataUrl.href } : {}) };
  } catch (error) {
    const root = new URL("/", serverUrl).href;
    if (!(error instanceof IssuerMismatchError && error.kind === "metadata" && error.expected === root)) throw error;
    const described = await discoverOAuthProtectedResourceMetadata(serverUrl, where, fetchFn).then(
      () => true,
      () => false,
    );
    if (described) throw error;
    const metadata = await discoverAuthorizationServerMetadata(root, { fetchFn, skipIssuerValidation: true });
    return { authorizationServerUrl: root, ...(metadata ? { authorizationServerMetadata: metadata } : {}) };
  }
}

/**
 * The MCP authorization spec: a client MUST verify from the authorization server's metadata that
 * it supports PKCE (S256), and MUST refuse to proceed when `code_challenge_methods_supported` is
 * absent. A server with no metadata at all gets the 2025-03-26 default endpoints, where that
 * revision requires PKCE of every authorization server.
 */
function refuseWithoutPkce(discovery: OAuthDiscoveryState): void {
  const metadata = discovery.authorizationServerMetadata;
  const methods = metadata?.code_challenge_methods_supported;
  if (metadata === undefined || methods?.includes("S256")) return;
  const listed = methods === undefined ? "lists no code_challenge_methods_supported in its metadata" : `lists ${JSON.stringify(methods.slice(0, 5)).slice(0, 100)} as its code_challenge_methods_supported`;
  throw new Error(`the login was refused: the authorization server ${JSON.stringify(metadata.issuer)} ${listed}: the MCP authorization spec allows a login only where the metadata lists PKCE with S256`);
}

/**
 * An MCP message rather than an OAuth request: a JSON-RPC POST, or a request to the server's
 * own URL (its event stream, the end of a session). Discovery, registration and token
 * requests are neither; they are the SDK's, bounded here as MCP messages are in the transports.
 */
function isMcpRequest(url: string | URL, init: RequestInit | undefined, serverUrl: string): boolean {
  if (typeof init?.body === "string" && init.body.includes('"jsonrpc"')) return true;
  const target = new URL(url);
  const server = new URL(serverUrl);
  return target.origin === server.origin && target.pathname === server.pathname;
}

/** An OAuth request read whole within the time limit and the size limit, or one line saying which it passed. */
async function boundedFetch(url: string | URL, init: RequestInit | undefined, timeoutMs: number): Promise<Response> {
  const where = new URL(url);
  const shown = `${where.origin}${where.pathname}`;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  try {
    const response = await checkedFetch(url, { ...init, signal });
    const body = await readAtMost(response, MAX_OAUTH_REPLY_BYTES);
    if (body === undefined) throw new Error(`the OAuth reply from ${shown} is larger than ${formatMiB(MAX_OAUTH_REPLY_BYTES)} (the limit)`);
    return new Response(response.status === 204 || response.status === 304 ? null : (body as Uint8Array<ArrayBuffer>), { status: response.status, statusText: response.statusText, headers: response.headers });
  } catch (error) {
    if (timeout.aborted && !init?.signal?.aborted) throw new Error(`the OAuth request to ${shown} took longer than ${timeoutMs} ms (the limit)`);
    throw error;
  }
}

/** The body, or undefined once it passes `limit` bytes (reading stops there). */
async function readAtMost(response: Response, limit: number): Promise<Uint8Array | undefined> {
  const declared = Number(response.headers.get("content-length"));
  if (declared > limit && !response.headers.has("content-encoding")) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * "authentication required" for a server that answered 401 (or 403) with no way to log in,
 * quoting what it said and pointing at `headers`.
 */
export function authenticationRequired(status: number, said: string, why: string): string {
  const quoted = said.replace(/\s+/g, " ").trim().slice(0, QUOTED_BODY_CHARS);
  return `authentication required (HTTP ${status}${quoted ? `: ${quoted}` : ""}); ${why}: set "headers" (e.g. "Authorization": "Bearer \${TOKEN}") in the server's entry`;
}

/**
 * One line for an authorization server that is not the one it claims to be, or not the one the
 * login started with; undefined for any other error. What such a server sent is never repeated.
 */
function issuerRefusal(error: unknown): Error | undefined {
  if (error instanceof IssuerMismatchError) {
    return new Error(
      error.kind === "metadata"
        ? `the authorization server's metadata names another issuer than ${JSON.stringify(error.expected)} (RFC 8414): it is not used`
        : `the login was refused: its answer did not come from the authorization server asked, ${JSON.stringify(error.expected)} (its "iss" does not match, RFC 9207)`,
    );
  }
  if (error instanceof AuthorizationServerMismatchError) {
    return new Error(`the login was refused: the server changed its authorization server during the login (${JSON.stringify(error.currentIssuer)}); log in again`);
  }
  return undefined;
}

/** A token refreshed ahead of its expiry replaces a Bearer one; a DPoP proof is bound to its token, so that one stays (still valid). */
function withBearer(init: RequestInit | undefined, token: string): RequestInit | undefined {
  const headers = new Headers(init?.headers);
  if (!/^Bearer /i.test(headers.get("authorization") ?? "")) return init;
  headers.set("authorization", `Bearer ${token}`);
  return { ...init, headers };
}

/** The start of a refusal's body, read no further than needed. */
async function quote(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  let text = "";
  const decoder = new TextDecoder();
  try {
    while (text.length < QUOTED_BODY_CHARS) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // what arrived is enough
  } finally {
    void reader.cancel().catch(() => undefined);
  }
  return text.slice(0, QUOTED_BODY_CHARS);
}
