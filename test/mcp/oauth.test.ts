// OAuth 2.1 for remote servers, end to end against an authorization server and MCP servers written in the tests.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ServerConfig } from "../../src/config/schema.js";
import { HubError } from "../../src/mcp/errors.js";
import { Hub } from "../../src/mcp/hub.js";
import { followRedirects, TestAuthServer, TestResourceServer } from "../support/oauth-server.js";

let dir: string;
let oauthDir: string;
let logFile: string;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbridge-oauth-"));
  oauthDir = join(dir, "oauth");
  logFile = join(dir, "servers.log");
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function servers(authOptions: ConstructorParameters<typeof TestAuthServer>[0] = {}, count = 1) {
  const auth = await new TestAuthServer(authOptions).start();
  cleanups.push(() => auth.stop());
  const resources: TestResourceServer[] = [];
  for (let i = 0; i < count; i++) {
    const resource = await new TestResourceServer(auth).start();
    cleanups.push(() => resource.stop());
    resources.push(resource);
  }
  return { auth, resources };
}

async function connect(config: Record<string, ServerConfig>): Promise<Hub> {
  const hub = await Hub.connect(config, { oauthDir, stderrLogFile: logFile, defaultStartupTimeoutMs: 10_000 });
  cleanups.push(() => hub.close());
  return hub;
}

async function whoami(hub: Hub, tool = "whoami"): Promise<string> {
  const result = await hub.callTool(tool, {});
  return (result.content[0] as { text: string }).text;
}

describe("OAuth login to a protected server", () => {
  it("reports a server that asks for a login as needing one, then logs in through the browser and connects", async () => {
    const { auth, resources } = await servers();
    const [resource] = resources as [TestResourceServer];
    const hub = await connect({ protected: { url: resource.url } });
    expect(hub.servers()[0]).toMatchObject({ status: "failed", needsLogin: true, error: "needs login", transport: "streamable-http" });

    await hub.login("protected", followRedirects);

    expect(hub.servers()[0]).toMatchObject({ status: "connected", toolCount: 2 });
    expect(hub.servers()[0]?.needsLogin).toBeUndefined();
    expect(await whoami(hub)).toBe("client-1 with scope read");
    // Registered dynamically with the loopback redirect; asked with PKCE S256, for this resource, the scope the server lists.
    const [request] = auth.authorizeRequests;
    expect(request?.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(auth.registrations.get("client-1")?.redirect_uris).toEqual([request?.get("redirect_uri")]);
    expect(Object.fromEntries(request ?? [])).toMatchObject({ code_challenge_method: "S256", resource: resource.url, scope: "read" });
    expect(auth.tokenRequests).toEqual([{ grant: "authorization_code", client: "client-1", resource: resource.url }]);
  });

  it("keeps tokens in a 0600 file in a 0700 directory, and a later hub connects with them without a login", async () => {
    const { auth, resources } = await servers();
    const [resource] = resources as [TestResourceServer];
    await (await connect({ protected: { url: resource.url } })).login("protected", followRedirects);

    expect(statSync(oauthDir).mode & 0o777).toBe(0o700);
    const files = readdirSync(oauthDir);
    expect(files).toHaveLength(1);
    expect(statSync(join(oauthDir, files[0] as string)).mode & 0o777).toBe(0o600);

    const again = await connect({ protected: { url: resource.url } });
    expect(again.servers()[0]?.status).toBe("connected");
    expect(auth.authorizeRequests).toHaveLength(1);
  });

  it("refreshes a short-lived token before it expires, so the server never has to refuse it", async () => {
    const { auth, resources } = await servers({ expiresIn: 2 });
    const [resource] = resources as [TestResourceServer];
    const hub = await connect({ protected: { url: resource.url } });
    await hub.login("protected", followRedirects);
    const refusals = resource.statuses.filter((status) => status === 401).length;

    // Past two thirds of the token's life, still before its end.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await whoami(hub)).toBe("client-1 with scope read");

    expect(auth.tokenRequests.map((request) => request.grant)).toEqual(["authorization_code", "refresh_token"]);
    expect(auth.tokenRequests[1]?.resource).toBe(resource.url);
    expect(resource.statuses.filter((status) => status === 401).length).toBe(refusals);
  });

  it("refreshes on a 401 when the access token was revoked, and retries the call", async () => {
    const { auth, resources } = await servers();
    const [resource] = resources as [TestResourceServer];
    const hub = await connect({ protected: { url: resource.url } });
    await hub.login("protected", followRedirects);
    auth.revokeAll("access");

    expect(await whoami(hub)).toBe("client-1 with scope read");
    expect(auth.tokenRequests.map((request) => request.grant)).toEqual(["authorization_code", "refresh_token"]);
  });

  it("says a new login is needed when the refresh token was revoked too, and a login mends it", async () => {
    const { auth, resources } = await servers();
    const [resource] = resources as [TestResourceServer];
    const hub = await connect({ protected: { url: resource.url } });
    await hub.login("protected", followRedirects);
    auth.revokeAll("both");

    const failure = await hub.callTool("whoami", {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HubError);
    expect(failure).toMatchObject({ code: "needs-login", server: "protected" });
    expect(hub.servers()[0]?.needsLogin).toBe(true);

    await hub.login("protected", followRedirects);
    expect(await whoami(hub)).toBe("client-1 with scope read");
  });

  it("steps up to the scope a 403 insufficient_scope asks for, once, with a new login", async () => {
    const { auth, resources } = await servers();
    const [resource] = resources as [TestResourceServer];
    const hub = await connect({ protected: { url: resource.url } });
    await hub.login("protected", followRedirects);

    await expect(hub.callTool("admin", {})).rejects.toMatchObject({ code: "needs-login" });
    expect(resource.statuses.filter((status) => status === 403)).toHaveLength(1);
    await hub.login("protected", followRedirects);

    expect(auth.authorizeRequests.at(-1)?.get("scope")).toBe("read admin");
    expect(await whoami(hub, "admin")).toBe("admin done");
  });

  it("answers the browser's redirect with a page saying the window may close", async () => {
    const { resources } = await servers();
    const [resource] = resources as [TestResourceServer];
    const hub = await connect({ protected: { url: resource.url } });
    let page = "";
    await hub.login("protected", async (url) => {
      page = await (await fetch(url)).text();
    });
    expect(page).toContain("You may close this window.");
  });

  it("gives up a login the browser never answers, after the timeout, with one line", async () => {
    const { resources } = await servers();
    const [resource] = resources as [TestResourceServer];
    const hub = await connect({ protected: { url: resource.url } });
    let shown: URL | undefined;

    await expect(hub.login("protected", (url) => void (shown = url), 300)).rejects.toThrow(
      /^no answer from the browser within 0\.3 s; the login was given up$/,
    );
    expect(shown?.pathname).toBe("/authorize");
    expect(hub.servers()[0]).toMatchObject({ status: "failed", needsLogin: true });
  });

  it("keeps the tokens it has when a new login is given up", async () => {
    const { resources } = await servers();
    const [resource] = resources as [TestResourceServer];
    const hub = await connect({ protected: { url: resource.url } });
    await hub.login("protected", followRedirects);

    await expect(hub.login("protected", () => undefined, 300)).rejects.toThrow(/no answer from the browser/);
    expect(await whoami(hub)).toBe("client-1 with scope read");
  });

  it("refuses an authorization server whose metadata names another issuer", async () => {
    const { auth, resources } = await servers({ issuer: "https://issuer.example" });
    const [resource] = resources as [TestResourceServer];
    const hub = await connect({ protected: { url: resource.url } });

    await expect(hub.login("protected", followRedirects)).rejects.toThrow(/^the authorization server's metadata names another issuer than "http:\/\/127\.0\.0\.1:\d+" \(RFC 8414\): it is not used$/);
    expect(auth.registrations.size).toBe(0);
    expect(auth.tokenRequests).toEqual([]);
  });

  it("logs in to a 2025-03-26 server, whose authorization server metadata at its own root names another issuer", async () => {
    const auth = await new TestAuthServer().start();
    cleanups.push(() => auth.stop());
    const legacy = await new TestResourceServer(auth, { legacy: true }).start();
    cleanups.push(() => legacy.stop());
    const hub = await connect({ old: { url: legacy.url } });
    expect(hub.servers()[0]).toMatchObject({ status: "failed", needsLogin: true });

    await hub.login("old", followRedirects);

    expect(await whoami(hub)).toBe("client-1 with scope ");
    expect(auth.tokenRequests).toEqual([{ grant: "authorization_code", client: "client-1" }]);
  });

  it("logs in to two servers of one issuer separately: each token is for its own server", async () => {
    const { auth, resources } = await servers({}, 2);
    const [first, second] = resources as [TestResourceServer, TestResourceServer];
    const hub = await connect({ first: { url: first.url }, second: { url: second.url } });
    await hub.login("first", followRedirects);
    await hub.login("second", followRedirects);

    expect(hub.servers().map((state) => state.status)).toEqual(["connected", "connected"]);
    expect(auth.tokenRequests.map((request) => request.resource)).toEqual([first.url, second.url]);
    expect(readdirSync(oauthDir)).toHaveLength(2);
    expect([...auth.accessTokens.values()].map((issued) => issued.resource).sort()).toEqual([first.url, second.url].sort());
  });

  it("writes no token to the server log, the server states or the call results", async () => {
    const { auth, resources } = await servers({ expiresIn: 2 });
    const [resource] = resources as [TestResourceServer];
    const hub = await connect({ protected: { url: resource.url } });
    await hub.login("protected", followRedirects);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const result = await hub.callTool("whoami", {});
    auth.revokeAll("both");
    await hub.callTool("whoami", {}).catch(() => undefined);
    await hub.close();

    const seen = [existsSync(logFile) ? readFileSync(logFile, "utf8") : "", JSON.stringify(hub.servers()), JSON.stringify(result)].join("\n");
    expect(auth.allTokens().length).toBeGreaterThan(2);
    for (const token of auth.allTokens()) expect(seen).not.toContain(token);
  });
});

describe("a server that answers 401 without offering OAuth", () => {
  it("is reported as needing authentication, with the server's message and a hint to set headers, not taken for an old SSE server", async () => {
    const { resources } = await servers();
    const [resource] = resources as [TestResourceServer];
    const bare = await new TestResourceServer(new TestAuthServer(), { noMetadata: true }).start();
    cleanups.push(() => bare.stop());
    void resource;
    const hub = await connect({ bare: { url: bare.url } });

    const [state] = hub.servers();
    expect(state?.status).toBe("failed");
    expect(state?.transport).toBe("streamable-http");
    expect(state?.error).toMatch(/^authentication required \(HTTP 401: .*log in first.*\); it offers no OAuth login: set "headers"/);
  });

  it("with its own Authorization header refused, says so the same way", async () => {
    const bare = await new TestResourceServer(new TestAuthServer(), { noMetadata: true }).start();
    cleanups.push(() => bare.stop());
    const hub = await connect({ bare: { url: bare.url, headers: { Authorization: "Bearer wrong" } } });

    const [state] = hub.servers();
    expect(state?.transport).toBe("streamable-http");
    expect(state?.error).toMatch(/^authentication required \(HTTP 401: .*log in first.*\); the server refused it: set "headers"/);
  });
});
