import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach } from "vitest";
import { Hub, type HubOptions } from "../../src/mcp/hub.js";
import { expectNoChildren } from "./processes.js";

/**
 * A hub per test in a file: a scratch directory with the server log, the hub closed after
 * each test with no child process left, the directory removed at the end.
 */
export function hubPerTest(prefix: string) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const stderrLogFile = join(dir, "servers.log");
  let hub: Hub | undefined;
  afterEach(async () => {
    await hub?.close();
    hub = undefined;
    await expectNoChildren();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    stderrLogFile,
    async connect(servers: Parameters<typeof Hub.connect>[0], options: HubOptions = {}): Promise<Hub> {
      await hub?.close();
      hub = await Hub.connect(servers, { stderrLogFile, ...options });
      return hub;
    },
  };
}
