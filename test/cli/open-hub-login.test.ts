// The browser login the CLI does for servers that ask for one (first use, and in chat after a failed refresh).
import { afterEach, expect, it } from "vitest";
import { logInWhereAsked } from "../../src/cli/open-hub.js";
import { hubNeedingLogin, type Cleanup } from "../support/login-needed.js";

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it("opens $BROWSER on the authorization URL of each server that needs a login, and leaves them connected", async () => {
  const { hub, auth, browser } = await hubNeedingLogin("toolbridge-login-", cleanups);
  expect(hub.servers()[0]?.needsLogin).toBe(true);

  auth.revokeAll();
  await logInWhereAsked(hub, { BROWSER: browser, NO_COLOR: "1" });

  expect(hub.servers()[0]).toMatchObject({ status: "connected", toolCount: 2 });
  expect(auth.authorizeRequests).toHaveLength(1);
});
