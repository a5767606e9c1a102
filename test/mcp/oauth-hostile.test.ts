// OAuth against hostile authorization servers and a server that quotes its token back:
// what a login opens, how much and how long it reads, and where a token may show up.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_OAUTH_REPLY_BYTES } from "../../src/mcp/auth/session.js";
import { Hub } from "../../src/mcp/hub.js";
import { followRedirects, TestAuthServer, TestResourceServer, type AuthServerOptions } from "../support/oauth-server.js";

let dir: string;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbridge-oauth-hostile-"));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function protectedHub(authOptions: AuthServerOptions, startupTimeoutMs = 10_000, echoToken = false) {
  const auth = await new TestAuthServer(authOptions).start();
  cleanups.push(() => auth.stop());
  const resource = await new TestResourceServer(auth, { echoToken }).start();
  cleanups.push(() => resource.stop());
  const hub = await Hub.connect({ protected: { url: resource.url } }, { oauthDir: join(dir, "oauth"), stderrLogFile: join(dir, "log"), defaultStartupTimeoutMs: startupTimeoutMs });
  cleanups.push(() => hub.close());
  return { auth, hub };
}

describe("what a login opens", () => {
  it.each(["file:///etc/passwd", "vscode://evil.example/authorize", "http://evil.example/authorize"])(
    "never hands the browser an authorization URL like %s from the server's metadata",
    async (endpoint) => {
      const { hub } = await protectedHub({ authorizationEndpoint: endpoint });
      const opened: URL[] = [];
      const login = hub.login("protected", (url) => void opened.push(url), 5000);
      await expect(login).rejects.toThrow(/^the authorization server's login page was not opened: only https URLs \(or http on this machine\) are opened, not (file|vscode|http):$/);
      expect(opened).toEqual([]);
    },
  );
});

describe("PKCE", () => {
  it.each([
    ["absent", "lists no code_challenge_methods_supported in its metadata"],
    [["plain"], 'lists \\["plain"\\] as its code_challenge_methods_supported'],
  ] as const)("refuses a login where the metadata's PKCE methods are %j, before registering, with one line", async (pkceMethods, listed) => {
    const { auth, hub } = await protectedHub({ pkceMethods: pkceMethods === "absent" ? "absent" : [...pkceMethods] });
    const opened: URL[] = [];
    const failure = await hub.login("protected", (url) => void opened.push(url), 5000).then(
      () => "logged in",
      (error: Error) => error.message,
    );
    expect(failure).toMatch(new RegExp(`^the login was refused: the authorization server "http://127\\.0\\.0\\.1:\\d+/?" ${listed}: the MCP authorization spec allows a login only where the metadata lists PKCE with S256$`));
    expect(opened).toEqual([]);
    expect(auth.registrations.size).toBe(0);
  });
});

describe("how much and how long an OAuth reply is read", () => {
  it("stops reading metadata that never ends at the size limit, with one line", async () => {
    const { hub } = await protectedHub({ metadata: "endless" });
    const failure = await hub.login("protected", followRedirects, 5000).then(
      () => "logged in",
      (error: Error) => error.message,
    );
    expect(failure).toMatch(new RegExp(`the OAuth reply from http://127\\.0\\.0\\.1:\\d+/\\.well-known/oauth-authorization-server is larger than ${MAX_OAUTH_REPLY_BYTES / 1024 / 1024} MiB \\(the limit\\)`));
  }, 30_000);

  it("gives up metadata that stalls after the server's time limit, with one line", async () => {
    const { hub } = await protectedHub({ metadata: "stalled" }, 1500);
    const failure = await hub.login("protected", followRedirects, 5000).then(
      () => "logged in",
      (error: Error) => error.message,
    );
    expect(failure).toMatch(/the OAuth request to http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-authorization-server took longer than 1500 ms \(the limit\)/);
  }, 30_000);
});

describe("a token quoted back by the server", () => {
  it("is masked in the tool result, text and structured content alike", async () => {
    const { auth, hub } = await protectedHub({}, 10_000, true);
    await hub.login("protected", followRedirects);
    const result = await hub.callTool("echo-token", {});
    const [token] = [...auth.accessTokens.keys()];
    expect(token).toBeDefined();
    expect(JSON.stringify(result)).not.toContain(token);
    expect(result.content[0]).toEqual({ type: "text", text: "token *** may not do this" });
    expect(result.structuredContent).toEqual({ seen: "Bearer ***" });
  });

  it("is masked in a resource read and a prompt's messages", async () => {
    const { auth, hub } = await protectedHub({}, 10_000, true);
    await hub.login("protected", followRedirects);
    const [token] = [...auth.accessTokens.keys()];
    expect(token).toBeDefined();
    const read = await hub.readResource("token://seen");
    expect(read.contents).toEqual([{ uri: "token://seen", text: "seen ***" }]);
    const prompt = await hub.getPrompt("echo-token");
    expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: "use *** for this" } }]);
    expect(JSON.stringify([read, prompt])).not.toContain(token);
  });

  it("is masked in the message of an error the server answers with", async () => {
    const { auth, hub } = await protectedHub({}, 10_000, true);
    await hub.login("protected", followRedirects);
    const [token] = [...auth.accessTokens.keys()];
    const error = await hub.getPrompt("refuse-token").then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(error?.message).toMatch(/token \*\*\* is refused/);
    expect(error?.message).not.toContain(token);
  });
});
