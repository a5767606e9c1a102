// `toolbridge auth login|logout|status` and the "needs login" of `servers`, through the built CLI,
// against the OAuth-protected MCP server of the tests; the browser is a script that follows the redirect.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestAuthServer, TestResourceServer } from "../support/oauth-server.js";

const CLI = join(resolve(__dirname, "..", ".."), "dist", "cli", "main.js");

let work: string;
let auth: TestAuthServer;
let resource: TestResourceServer;
const outputs: string[] = [];

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "",
    HOME: work,
    XDG_CONFIG_HOME: join(work, "config"),
    BROWSER: `${process.execPath} ${join(work, "browser.mjs")}`,
  };
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args, "--config", join(work, "toolbridge.json")], { cwd: work, env, timeout: 60_000 }, (error, stdout, stderr) => {
      outputs.push(stdout, stderr);
      done({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "toolbridge-auth-cli-"));
  auth = await new TestAuthServer().start();
  resource = await new TestResourceServer(auth).start();
  writeFileSync(join(work, "toolbridge.json"), JSON.stringify({ mcpServers: { protected: { url: resource.url } } }));
  writeFileSync(join(work, "browser.mjs"), "await (await fetch(process.argv[2])).text();\n");
});

afterAll(async () => {
  await resource.stop();
  await auth.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("toolbridge auth", () => {
  it("shows a server waiting on a login as 'needs login', and a command without a terminal says how to log in", async () => {
    const servers = await cli("servers");
    expect(servers.stdout).toMatch(/protected\s+streamable-http\s+needs login/);
    const call = await cli("call", "whoami");
    expect(call.code).toBe(1);
    expect(call.stderr).toContain('server "protected" needs login: run toolbridge auth login protected');
  });

  it("logs in through the browser, keeps the tokens in a 0600 file, and the server then connects", async () => {
    const login = await cli("auth", "login", "protected");
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(/log in to server "protected" in your browser; if none opens, visit http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    expect(login.stderr).toContain("protected: logged in");

    const dir = join(work, "config", "toolbridge", "oauth");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir);
    expect(files.map((file) => statSync(join(dir, file)).mode & 0o777)).toEqual([0o600]);

    const call = await cli("call", "whoami");
    expect(call.stdout.trim()).toBe("client-1 with scope read");
  });

  it("reports the login without its token, then forgets it on logout", async () => {
    const status = await cli("auth", "status", "--json");
    expect(JSON.parse(status.stdout)).toEqual([
      expect.objectContaining({ server: "protected", url: resource.url, login: "logged in", scope: "read", issuer: auth.url }),
    ]);
    expect((await cli("auth", "status")).stdout).toMatch(/protected\s+logged in/);

    expect((await cli("auth", "logout", "protected")).stderr).toBe("protected: logged out\n");
    expect((await cli("auth", "status")).stdout).toMatch(/protected\s+not logged in/);
    expect((await cli("servers")).stdout).toMatch(/needs login/);
  });

  it("refuses a server that is not a remote one in the config", async () => {
    const run = await cli("auth", "login", "nowhere");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('server "nowhere" is not in the config');
  });

  it("never printed a token", () => {
    expect(auth.allTokens().length).toBeGreaterThan(0);
    const printed = outputs.join("\n");
    for (const token of auth.allTokens()) expect(printed).not.toContain(token);
  });
});
