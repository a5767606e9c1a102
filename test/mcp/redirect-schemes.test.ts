// An MCP server (or its authorization server) that redirects to file: gets one line naming the URL
// that redirected and the scheme, not undici's words nor the SDK's advice to use file:///etc/passwd as the endpoint.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { Hub } from "../../src/mcp/hub.js";

let dir: string;
let server: Server | undefined;
let hub: Hub | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolbridge-redirect-"));
});
afterEach(async () => {
  await hub?.close();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  rmSync(dir, { recursive: true, force: true });
  hub = server = undefined;
});

/** Every request redirected to file:///etc/passwd, but `/protected`, which asks for an OAuth login whose discovery is redirected too. */
async function redirecting(): Promise<string> {
  const srv = createServer((req, res) => {
    req.resume();
    const origin = `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
    if (req.url === "/protected") res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/protected"` });
    else res.writeHead(302, { location: "file:///etc/passwd" });
    res.end();
  });
  server = srv;
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
}

const LINE = "redirected to a file: URL, which is not followed (only http: and https: redirects are)";

it.each([
  ["Streamable HTTP", "/mcp", {}],
  ["legacy SSE", "/sse", { type: "sse" as const }],
])("a %s server that redirects to file: fails to connect with one line naming its URL and the scheme", async (_transport, path, type) => {
  const origin = await redirecting();
  hub = await Hub.connect({ hostile: { url: `${origin}${path}`, ...type } }, { oauthDir: join(dir, "oauth"), stderrLogFile: join(dir, "log"), defaultStartupTimeoutMs: 10_000 });
  const state = hub.servers().find((s) => s.name === "hostile");
  expect(state?.status).toBe("failed");
  expect(state?.error).toMatch(new RegExp(`^cannot connect to ${origin}${path}: (SSE error: )?${origin}${path} ${LINE.replace(/[.()]/g, "\\$&")}$`));
  expect(state?.error).not.toContain("use that URL as the endpoint");
});

it("a login whose OAuth discovery is redirected to file: fails with one line naming the discovery URL and the scheme", async () => {
  const origin = await redirecting();
  hub = await Hub.connect({ hostile: { url: `${origin}/protected` } }, { oauthDir: join(dir, "oauth"), stderrLogFile: join(dir, "log"), defaultStartupTimeoutMs: 10_000 });
  const opened: URL[] = [];
  const failure = await hub.login("hostile", (url) => void opened.push(url), 5000).then(
    () => "logged in",
    (error: Error) => error.message,
  );
  expect(failure).toMatch(new RegExp(`^${origin}/\\.well-known/oauth-[a-z-]+ ${LINE.replace(/[.()]/g, "\\$&")}$`));
  expect(opened).toEqual([]);
});
