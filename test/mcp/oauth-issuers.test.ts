// OAuth where the authorization server matters: a mix-up's `iss`, a move to another authorization
// server, DPoP (bound tokens, endless nonces), workload identity and a client bound to its issuer.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ServerConfig } from "../../src/config/schema.js";
import { Hub } from "../../src/mcp/hub.js";
import { followRedirects, TestAuthServer, TestResourceServer, type AuthServerOptions } from "../support/oauth-server.js";

let dir: string;
let oauthDir: string;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbridge-oauth-issuers-"));
  oauthDir = join(dir, "oauth");
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function authServer(options: AuthServerOptions = {}): Promise<TestAuthServer> {
  const auth = await new TestAuthServer(options).start();
  cleanups.push(() => auth.stop());
  return auth;
}

async function resourceServer(auth: TestAuthServer): Promise<TestResourceServer> {
  const resource = await new TestResourceServer(auth).start();
  cleanups.push(() => resource.stop());
  return resource;
}

async function connect(config: Record<string, ServerConfig>): Promise<Hub> {
  const hub = await Hub.connect(config, { oauthDir, stderrLogFile: join(dir, "servers.log"), defaultStartupTimeoutMs: 10_000 });
  cleanups.push(() => hub.close());
  return hub;
}

async function whoami(hub: Hub): Promise<string> {
  return ((await hub.callTool("whoami", {})).content[0] as { text: string }).text;
}

describe("the iss of an authorization response (RFC 9207)", () => {
  it("logs in when the authorization server sends its own issuer as it promised", async () => {
    const resource = await resourceServer(await authServer({ iss: "right", issSupported: true }));
    const hub = await connect({ protected: { url: resource.url } });
    await hub.login("protected", followRedirects);
    expect(await whoami(hub)).toBe("client-1 with scope read");
  });

  it("refuses an answer carrying another issuer, never redeems its code and never repeats what it said", async () => {
    const auth = await authServer({ iss: "wrong" });
    const hub = await connect({ protected: { url: (await resourceServer(auth)).url } });
    const failure = (await hub.login("protected", followRedirects).then(() => undefined, (error: unknown) => error)) as Error;
    expect(failure.message).toBe(`the login was refused: its answer did not come from the authorization server asked, "${auth.url}" (its "iss" does not match, RFC 9207)`);
    expect(failure.message).not.toContain("evil");
    expect(auth.tokenRequests).toEqual([]);
    expect(hub.servers()[0]).toMatchObject({ status: "failed", needsLogin: true });
  });

  it("refuses an answer without iss from a server that promised one", async () => {
    const auth = await authServer({ issSupported: true });
    const hub = await connect({ protected: { url: (await resourceServer(auth)).url } });
    await expect(hub.login("protected", followRedirects)).rejects.toThrow(/its "iss" does not match, RFC 9207/);
    expect(auth.tokenRequests).toEqual([]);
  });
});

describe("a server that moves to another authorization server", () => {
  it("registers there at once, with no login (SEP-2352), then logs in there, never sending the first one's client or tokens", async () => {
    const first = await authServer();
    const second = await authServer();
    const resource = await resourceServer(first);
    const hub = await connect({ protected: { url: resource.url } });
    await hub.login("protected", followRedirects);
    expect(await whoami(hub)).toBe("client-1 with scope read");

    resource.auth = second;
    await expect(hub.callTool("whoami", {})).rejects.toMatchObject({ code: "needs-login" });
    // Registered with the new one already; only its tokens wait for the user.
    expect(second.registrations.size).toBe(1);
    expect(second.authorizeRequests).toEqual([]);
    await hub.login("protected", followRedirects);

    expect(await whoami(hub)).toBe("client-1 with scope read");
    expect(second.registrations.size).toBe(1);
    expect(second.authorizeRequests).toHaveLength(1);
    // Nothing of the first server's was presented to the second: its client id (also client-1) came from the second's registration.
    expect(second.tokenRequests.map((request) => request.grant)).toEqual(["authorization_code"]);
    expect(first.tokenRequests.every((request) => request.client === "client-1")).toBe(true);
  });
});

describe("DPoP (RFC 9449)", () => {
  it("binds the tokens to a key kept with them, so a later run presents them with fresh proofs and no new login", async () => {
    const auth = await authServer({ dpop: "bind" });
    const resource = await resourceServer(auth);
    await (await connect({ protected: { url: resource.url } })).login("protected", followRedirects);
    expect([...auth.accessTokens.values()][0]?.jkt).toMatch(/^[\w-]{43}$/);

    const later = await connect({ protected: { url: resource.url } });
    expect(later.servers()[0]?.status).toBe("connected");
    expect(await whoami(later)).toBe("client-1 with scope read");
    expect(new Set(resource.schemes)).toEqual(new Set(["DPoP"]));
    expect(auth.tokenRequests).toEqual([expect.objectContaining({ grant: "authorization_code", dpop: true })]);
    const [file] = readdirSync(oauthDir);
    expect(statSync(join(oauthDir, file as string)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(oauthDir, file as string), "utf8")).dpopKey).toMatchObject({ kty: "EC", crv: "P-256" });
  });

  it("gives up a token endpoint that wants a new nonce every time after one retry, with one line", async () => {
    const auth = await authServer({ dpop: "nonce-forever" });
    const hub = await connect({ protected: { url: (await resourceServer(auth)).url } });
    await expect(hub.login("protected", followRedirects)).rejects.toThrow(/use_dpop_nonce/);
    // The SDK retries once with the nonce; auth() once more after dropping the code: bounded either way.
    expect(auth.tokenRequests.length).toBeGreaterThanOrEqual(2);
    expect(auth.tokenRequests.length).toBeLessThanOrEqual(4);
  });
});

describe("workload identity (RFC 7523 jwt_bearer)", () => {
  it("trades the token in its file, read afresh for every request, for an access token, with no browser", async () => {
    const auth = await authServer();
    const resource = await resourceServer(auth);
    const assertionFile = join(dir, "workload-token");
    writeFileSync(assertionFile, "first.workload.jwt\n");
    const hub = await connect({ protected: { url: resource.url, oauth: { grantType: "jwt_bearer", clientId: "workload", assertionFile } } });
    await hub.login("protected", () => {
      throw new Error("no browser for a workload");
    });
    expect(await whoami(hub)).toBe("workload with scope read");

    writeFileSync(assertionFile, "second.workload.jwt\n");
    auth.revokeAll("both");
    expect(await whoami(hub)).toBe("workload with scope read");
    expect(new Set(auth.tokenRequests.map((request) => request.grant))).toEqual(new Set(["urn:ietf:params:oauth:grant-type:jwt-bearer"]));
    expect(auth.tokenRequests[0]?.assertion).toBe("first.workload.jwt");
    expect(auth.tokenRequests.at(-1)?.assertion).toBe("second.workload.jwt");
  });

  it("refuses a token file too large to be a token", async () => {
    const auth = await authServer();
    const assertionFile = join(dir, "workload-token");
    writeFileSync(assertionFile, "x".repeat(100 * 1024));
    const hub = await connect({ protected: { url: (await resourceServer(auth)).url, oauth: { grantType: "jwt_bearer", clientId: "workload", assertionFile } } });
    await expect(hub.login("protected", () => undefined)).rejects.toThrow(`the workload identity token "${assertionFile}" is larger than 64 KiB: not a token`);
    expect(auth.tokenRequests).toEqual([]);
  });

  it("sends a configured client to no authorization server but its configured issuer", async () => {
    const auth = await authServer();
    const hub = await connect({
      protected: { url: (await resourceServer(auth)).url, oauth: { grantType: "jwt_bearer", clientId: "workload", assertion: "a.b.c", issuer: "https://login.example" } },
    });
    await expect(hub.login("protected", () => undefined)).rejects.toThrow(`not to the configured "issuer" "https://login.example"`);
    expect(auth.tokenRequests).toEqual([]);
  });
});
