// The browser login the CLI does for servers that ask for one (first use, and in chat after a failed refresh).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { logInWhereAsked } from "../../src/cli/open-hub.js";
import { Hub } from "../../src/mcp/hub.js";
import { TestAuthServer, TestResourceServer } from "../support/oauth-server.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it("opens $BROWSER on the authorization URL of each server that needs a login, and leaves them connected", async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolbridge-login-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "browser.mjs"), "await (await fetch(process.argv[2])).text();\n");
  const auth = await new TestAuthServer().start();
  const resource = await new TestResourceServer(auth).start();
  cleanups.push(() => auth.stop(), () => resource.stop());
  const hub = await Hub.connect({ protected: { url: resource.url } }, { oauthDir: join(dir, "oauth"), stderrLogFile: join(dir, "log") });
  cleanups.push(() => hub.close());
  expect(hub.servers()[0]?.needsLogin).toBe(true);

  auth.revokeAll();
  await logInWhereAsked(hub, { BROWSER: `${process.execPath} ${join(dir, "browser.mjs")}`, NO_COLOR: "1" });

  expect(hub.servers()[0]).toMatchObject({ status: "connected", toolCount: 2 });
  expect(auth.authorizeRequests).toHaveLength(1);
});
