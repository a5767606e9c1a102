/**
 * TEST INFRASTRUCTURE ONLY: a hub with one OAuth-protected server that needs a browser login,
 * and a "browser" (for $BROWSER) that follows the authorization URL through to the redirect.
 * Everything it starts is pushed onto `cleanups`, to be run in reverse after the test.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hub } from "../../src/mcp/hub.js";
import { TestAuthServer, TestResourceServer } from "./oauth-server.js";

export type Cleanup = () => Promise<void> | void;

export async function hubNeedingLogin(prefix: string, cleanups: Cleanup[]) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "browser.mjs"), "await (await fetch(process.argv[2])).text();\n");
  const auth = await new TestAuthServer().start();
  const resource = await new TestResourceServer(auth).start();
  cleanups.push(() => auth.stop(), () => resource.stop());
  const hub = await Hub.connect({ protected: { url: resource.url } }, { oauthDir: join(dir, "oauth"), stderrLogFile: join(dir, "log") });
  cleanups.push(() => hub.close());
  return { dir, hub, auth, browser: `${process.execPath} ${join(dir, "browser.mjs")}` };
}
