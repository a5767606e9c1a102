/**
 * TEST INFRASTRUCTURE: an OAuth 2.1 authorization server and MCP servers protected by it, written
 * for the tests, never shipped. The authorization server publishes its metadata (RFC 8414), takes
 * dynamic registrations (RFC 7591), checks PKCE (S256) and the resource indicator (RFC 8707), issues
 * short-lived tokens bound to one resource and rotates refresh tokens; its authorization endpoint
 * consents at once and redirects, so a client that follows the redirect plays the browser. Each MCP
 * server publishes its protected-resource metadata (RFC 9728), answers 401 with a WWW-Authenticate
 * naming it, and 403 insufficient_scope for the `admin` tool without the `admin` scope.
 */
import { createHash, createPublicKey, randomBytes, verify, type JsonWebKey } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { readBody } from "./read-body.js";

export interface IssuedToken {
  client: string;
  resource: string;
  scope: string;
  expiresAt: number;
  /** The thumbprint of the DPoP key the token is bound to. */
  jkt?: string;
}

export interface AuthServerOptions {
  /** Lifetime of access tokens, seconds. */
  expiresIn?: number;
  /** The issuer its metadata names; its own URL unless set (a wrong one, for the tests that refuse it). */
  issuer?: string;
  /** The `iss` of its authorization responses (RFC 9207): none unless set; "wrong" plays a mix-up attacker. */
  iss?: "right" | "wrong";
  /** Whether its metadata promises `iss` in every authorization response. */
  issSupported?: boolean;
  /** DPoP (RFC 9449): "bind" binds tokens to the proof's key; "nonce-forever" wants a new nonce at every token request. */
  dpop?: "bind" | "nonce-forever";
  /** The authorization endpoint its metadata names; its own /authorize unless set (a hostile one: `file:`, an app's scheme). */
  authorizationEndpoint?: string;
  /** Hostile metadata: "endless" streams without end, "stalled" sends its headers and then nothing. */
  metadata?: "endless" | "stalled";
  /** The PKCE methods its metadata lists (`code_challenge_methods_supported`); ["S256"] unless set, "absent" for none at all. */
  pkceMethods?: string[] | "absent";
}

export interface TokenRequest {
  grant: string;
  client: string;
  resource?: string;
  scope?: string;
  /** The assertion of a jwt-bearer grant. */
  assertion?: string;
  /** Whether the request carried a DPoP proof. */
  dpop?: boolean;
}

export class TestAuthServer {
  url = "";
  readonly registrations = new Map<string, { redirect_uris: string[] }>();
  readonly authorizeRequests: URLSearchParams[] = [];
  readonly tokenRequests: TokenRequest[] = [];
  readonly accessTokens = new Map<string, IssuedToken>();
  private readonly refreshTokens = new Map<string, IssuedToken>();
  private readonly codes = new Map<string, { client: string; redirect: string; challenge: string; resource: string; scope: string }>();
  private readonly everIssued: string[] = [];
  private server: Server | undefined;

  constructor(private readonly options: AuthServerOptions = {}) {}

  async start(): Promise<this> {
    this.server = await listen((req, res) => this.handle(req, res));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Every token issued so far, access and refresh: what must never show up in a log. */
  allTokens(): string[] {
    return [...this.everIssued];
  }

  revokeAll(kind: "access" | "refresh" | "both" = "both"): void {
    if (kind !== "refresh") this.accessTokens.clear();
    if (kind !== "access") this.refreshTokens.clear();
  }

  async stop(): Promise<void> {
    await close(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.url);
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      if (this.options.metadata) return hostileMetadata(res, this.options.metadata);
      return json(res, 200, {
        ...(this.options.issSupported ? { authorization_response_iss_parameter_supported: true } : {}),
        ...(this.options.dpop ? { dpop_signing_alg_values_supported: ["ES256"] } : {}),
        issuer: this.options.issuer ?? this.url,
        authorization_endpoint: this.options.authorizationEndpoint ?? `${this.url}/authorize`,
        token_endpoint: `${this.url}/token`,
        registration_endpoint: `${this.url}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token", "client_credentials", JWT_BEARER],
        ...(this.options.pkceMethods === "absent" ? {} : { code_challenge_methods_supported: this.options.pkceMethods ?? ["S256"] }),
        token_endpoint_auth_methods_supported: ["none", "client_secret_basic"],
      });
    }
    if (url.pathname === "/register" && req.method === "POST") {
      const metadata = JSON.parse(await readBody(req)) as { redirect_uris: string[] };
      const clientId = `client-${this.registrations.size + 1}`;
      this.registrations.set(clientId, metadata);
      return json(res, 201, { ...metadata, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000) });
    }
    if (url.pathname === "/authorize") {
      const query = url.searchParams;
      this.authorizeRequests.push(query);
      const client = this.registrations.get(query.get("client_id") ?? "");
      const redirect = query.get("redirect_uri") ?? "";
      if (!client || !client.redirect_uris.includes(redirect)) return json(res, 400, { error: "invalid_request", error_description: "unknown client or redirect_uri" });
      if (query.get("code_challenge_method") !== "S256" || !query.get("code_challenge")) return json(res, 400, { error: "invalid_request", error_description: "PKCE S256 required" });
      const code = token();
      this.codes.set(code, {
        client: query.get("client_id") ?? "",
        redirect,
        challenge: query.get("code_challenge") ?? "",
        resource: query.get("resource") ?? "",
        scope: query.get("scope") ?? "",
      });
      const back = new URL(redirect);
      back.searchParams.set("code", code);
      if (query.has("state")) back.searchParams.set("state", query.get("state") ?? "");
      if (this.options.iss) back.searchParams.set("iss", this.options.iss === "right" ? this.url : "https://evil.example");
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (url.pathname === "/token" && req.method === "POST") {
      const form = new URLSearchParams(await readBody(req));
      const grant = form.get("grant_type") ?? "";
      const client = form.get("client_id") ?? basicClient(req) ?? "";
      const resource = form.get("resource") ?? undefined;
      const proof = typeof req.headers.dpop === "string" ? req.headers.dpop : undefined;
      this.tokenRequests.push({
        grant,
        client,
        ...(resource !== undefined ? { resource } : {}),
        ...(form.has("scope") ? { scope: form.get("scope") ?? "" } : {}),
        ...(form.has("assertion") ? { assertion: form.get("assertion") ?? "" } : {}),
        ...(this.options.dpop ? { dpop: proof !== undefined } : {}),
      });
      if (this.options.dpop === "nonce-forever") {
        res.writeHead(400, { "content-type": "application/json", "dpop-nonce": token() }).end(JSON.stringify({ error: "use_dpop_nonce" }));
        return;
      }
      const jkt = this.options.dpop === "bind" && proof !== undefined ? checkProof(proof, "POST", `${this.url}/token`)?.jkt : undefined;
      if (grant === JWT_BEARER) return json(res, 200, this.issue({ client, resource: resource ?? "", scope: form.get("scope") ?? "", expiresAt: 0 }));
      if (grant === "authorization_code") {
        const code = this.codes.get(form.get("code") ?? "");
        this.codes.delete(form.get("code") ?? "");
        const verifier = form.get("code_verifier") ?? "";
        if (!code || code.client !== client || code.redirect !== form.get("redirect_uri") || s256(verifier) !== code.challenge || code.resource !== (resource ?? "")) {
          return json(res, 400, { error: "invalid_grant", error_description: "code, client, redirect_uri, PKCE verifier or resource do not match" });
        }
        return json(res, 200, this.issue({ client, resource: code.resource, scope: code.scope, expiresAt: 0, ...(jkt !== undefined ? { jkt } : {}) }));
      }
      if (grant === "refresh_token") {
        const issued = this.refreshTokens.get(form.get("refresh_token") ?? "");
        this.refreshTokens.delete(form.get("refresh_token") ?? "");
        if (!issued || issued.client !== client) return json(res, 400, { error: "invalid_grant", error_description: "refresh token unknown or revoked" });
        return json(res, 200, this.issue({ ...issued, ...(jkt !== undefined ? { jkt } : {}) }));
      }
      return json(res, 400, { error: "unsupported_grant_type" });
    }
    json(res, 404, { error: "not_found" });
  }

  private issue(grant: IssuedToken): Record<string, unknown> {
    const expiresIn = this.options.expiresIn ?? 3600;
    const access = token();
    const refresh = token();
    const issued = { ...grant, expiresAt: Date.now() + expiresIn * 1000 };
    this.accessTokens.set(access, issued);
    this.refreshTokens.set(refresh, issued);
    this.everIssued.push(access, refresh);
    return { access_token: access, token_type: grant.jkt !== undefined ? "DPoP" : "Bearer", expires_in: expiresIn, refresh_token: refresh, scope: grant.scope };
  }
}

export interface ResourceServerOptions {
  /** Scopes listed in its protected-resource metadata. */
  scopes?: string[];
  /** Leave out the metadata and the WWW-Authenticate pointer: a server with no OAuth to offer. */
  noMetadata?: boolean;
  /**
   * Quote the token it was sent back, as some servers do: the tool `echo-token` (an error result),
   * the resource `token://seen`, the prompt `echo-token`, and the prompt `refuse-token`, which fails
   * with a JSON-RPC error quoting it.
   */
  echoToken?: boolean;
  /**
   * A 2025-03-26 server: no protected-resource metadata, its authorization server's metadata served at
   * its own root (naming that server as the issuer, not this root), tokens taken without a resource indicator.
   */
  legacy?: boolean;
}

/** An MCP server (stateless Streamable HTTP at /mcp) that takes only tokens `auth` issued for it. */
export class TestResourceServer {
  url = "";
  /** Statuses of the MCP requests, in order. */
  readonly statuses: number[] = [];
  /** The Authorization schemes of the MCP requests, in order. */
  readonly schemes: string[] = [];
  private server: Server | undefined;

  constructor(
    /** Its authorization server; replaced, the server moves to another one. */
    public auth: TestAuthServer,
    private readonly options: ResourceServerOptions = {},
  ) {}

  async start(): Promise<this> {
    this.server = await listen((req, res) => this.handle(req, res));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/mcp`;
    return this;
  }

  async stop(): Promise<void> {
    await close(this.server);
  }

  private get metadataUrl(): string {
    return `${new URL(this.url).origin}/.well-known/oauth-protected-resource/mcp`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", this.url).pathname;
    const { noMetadata, legacy } = this.options;
    if (path === "/.well-known/oauth-protected-resource/mcp" && !noMetadata && !legacy) {
      return json(res, 200, { resource: this.url, authorization_servers: [this.auth.url], scopes_supported: this.options.scopes ?? ["read"] });
    }
    if (path === "/.well-known/oauth-authorization-server" && legacy) {
      return json(res, 200, await (await fetch(`${this.auth.url}${path}`)).json());
    }
    if (path !== "/mcp") return json(res, 404, { error: "not_found" });
    const body = req.method === "POST" ? (JSON.parse(await readBody(req)) as { method?: string; params?: { name?: string } }) : undefined;
    const [, scheme, bearer] = /^(Bearer|DPoP) (.+)$/.exec(req.headers.authorization ?? "") ?? [];
    if (scheme) this.schemes.push(scheme);
    const found = bearer === undefined ? undefined : this.auth.accessTokens.get(bearer);
    // A DPoP-bound token counts only with a proof of its key, for this request and this token.
    const proof = typeof req.headers.dpop === "string" ? checkProof(req.headers.dpop, req.method ?? "", this.url) : undefined;
    const bound = found?.jkt === undefined || (scheme === "DPoP" && proof?.jkt === found.jkt && proof.ath === s256(bearer ?? ""));
    const issued = bound ? found : undefined;
    const pointer = noMetadata || legacy ? "" : `, resource_metadata="${this.metadataUrl}"`;
    if (!issued || issued.resource !== (legacy ? "" : this.url) || issued.expiresAt <= Date.now()) {
      this.statuses.push(401);
      res.writeHead(401, { "www-authenticate": `Bearer error="invalid_token"${pointer}`, "content-type": "application/json" });
      res.end(JSON.stringify({ error: "invalid_token", error_description: "log in first" }));
      return;
    }
    if (body?.method === "tools/call" && body.params?.name === "admin" && !issued.scope.split(" ").includes("admin")) {
      this.statuses.push(403);
      res.writeHead(403, { "www-authenticate": `Bearer error="insufficient_scope", scope="read admin"${pointer}` }).end();
      return;
    }
    this.statuses.push(200);
    if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end();
    const server = new McpServer({ name: "protected", version: "1.0.0" });
    server.registerTool("whoami", { description: "The client the token was issued to" }, () => ({
      content: [{ type: "text", text: `${issued.client} with scope ${issued.scope}` }],
    }));
    server.registerTool("admin", { description: "Needs the admin scope" }, () => ({ content: [{ type: "text", text: "admin done" }] }));
    if (this.options.echoToken) {
      server.registerTool("echo-token", { description: "Fails, quoting the token" }, () => ({
        content: [{ type: "text", text: `token ${bearer} may not do this` }],
        structuredContent: { seen: `Bearer ${bearer}` },
        isError: true,
      }));
      server.registerResource("seen", "token://seen", { mimeType: "text/plain" }, (uri) => ({ contents: [{ uri: uri.href, text: `seen ${bearer}` }] }));
      server.registerPrompt("echo-token", { description: "Quotes the token" }, () => ({
        messages: [{ role: "user", content: { type: "text", text: `use ${bearer} for this` } }],
      }));
      server.registerPrompt("refuse-token", { description: "Fails, quoting the token" }, () => {
        throw new Error(`token ${bearer} is refused`);
      });
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }
}

/** Metadata that never ends (a JSON string that goes on, a chunk every few ms) or never comes (headers, then silence). */
function hostileMetadata(res: ServerResponse, kind: "endless" | "stalled"): void {
  res.writeHead(200, { "content-type": "application/json" });
  if (kind === "stalled") {
    res.write("{");
    return;
  }
  res.write('{"issuer": "');
  const chunk = "x".repeat(64 * 1024);
  const timer = setInterval(() => {
    if (res.destroyed) clearInterval(timer);
    else res.write(chunk);
  }, 2);
  res.on("close", () => clearInterval(timer));
}

/** The browser of the tests: fetches the authorization URL and follows the redirect to the loopback receiver. */
export async function followRedirects(url: URL): Promise<void> {
  const response = await fetch(url);
  await response.text();
}

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/** A DPoP proof's key thumbprint and `ath`, when it is an ES256 dpop+jwt signed by its own key for this method and URL. */
function checkProof(proof: string, method: string, url: string): { jkt: string; ath?: string } | undefined {
  const [head, body, signature] = proof.split(".");
  if (head === undefined || body === undefined || signature === undefined) return undefined;
  const header = JSON.parse(Buffer.from(head, "base64url").toString("utf8")) as { typ?: string; alg?: string; jwk?: JsonWebKey };
  const claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as { htm?: string; htu?: string; ath?: string };
  if (header.typ !== "dpop+jwt" || header.alg !== "ES256" || !header.jwk || claims.htm !== method || claims.htu !== url) return undefined;
  const key = createPublicKey({ key: header.jwk, format: "jwk" });
  if (!verify("sha256", Buffer.from(`${head}.${body}`), { key, dsaEncoding: "ieee-p1363" }, Buffer.from(signature, "base64url"))) return undefined;
  const { crv, kty, x, y } = header.jwk;
  const jkt = createHash("sha256").update(JSON.stringify({ crv, kty, x, y })).digest("base64url");
  return { jkt, ...(claims.ath !== undefined ? { ath: claims.ath } : {}) };
}

function token(): string {
  return randomBytes(24).toString("base64url");
}

function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

function basicClient(req: IncomingMessage): string | undefined {
  const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "")?.[1];
  return basic === undefined ? undefined : decodeURIComponent(Buffer.from(basic, "base64").toString("utf8").split(":")[0] ?? "");
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function listen(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<Server> {
  const server = createServer((req, res) => {
    handler(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: "server_error", error_description: String(error) });
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

function close(server: Server | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!server) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
