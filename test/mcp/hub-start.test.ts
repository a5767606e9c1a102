import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Hub } from "../../src/mcp/hub.js";
import { expectNoChildren, fixture, recordedEvents, waitUntil } from "./processes.js";

let hub: Hub | undefined;

afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await expectNoChildren();
});

describe("Hub.start", () => {
  it("returns at once; a server's tools join the registry as it connects, before a hung one has failed", async () => {
    const started = Hub.start({
      toy: fixture("toy-server.mjs", "--name", "toy", "--tools", "search"),
      stuck: { ...fixture("hang-on-initialize.mjs"), startupTimeoutMs: 3000 },
    });
    hub = started.hub;
    let ready = false;
    void started.ready.then(() => (ready = true));
    expect(hub.servers().map((s) => s.status)).toEqual(["connecting", "connecting"]);
    await waitUntil(() => hub?.tools().some((tool) => tool.name === "search") ?? false, 10_000, "the toy server's tool");
    expect(ready).toBe(false);
    expect(hub.servers().find((s) => s.name === "stuck")?.status).toBe("connecting");
    await started.ready;
    expect(hub.servers().find((s) => s.name === "stuck")?.status).toBe("failed");
    expect(hub.tools().map((tool) => tool.name)).toContain("search");
  });

  it("closed by a signal while a server has not answered the version probe, ends it at once with SIGTERM, not after the probe's wait and the stdin grace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolbridge-hub-start-"));
    const log = join(dir, "events");
    try {
      const started = Hub.start({ silent: { ...fixture("records-its-end.mjs", log), startupTimeoutMs: 120_000 } });
      hub = started.hub;
      await waitUntil(() => recordedEvents(log).includes("request server/discover"), 10_000, "the version probe to reach the server");
      await hub.close({ terminate: true });
      await started.ready;
      // The close did not wait for the probe to time out (the SDK would then have closed stdin first).
      expect(recordedEvents(log)).toEqual(["started", "request server/discover", "SIGTERM"]);
      expect(hub.servers()[0]?.status).toBe("closed");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("closed while a server pinned to 2026-07-28 has not answered server/discover, ends it at once and does not wait out the startup timeout (two minutes)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolbridge-hub-start-"));
    const log = join(dir, "events");
    try {
      const started = Hub.start({ silent: { ...fixture("records-its-end.mjs", log), protocol: "2026-07-28", startupTimeoutMs: 120_000 } });
      hub = started.hub;
      await waitUntil(() => recordedEvents(log).includes("request server/discover"), 10_000, "the probe to reach the server");
      // The SDK hears the abort only once its probe has timed out: closing must not wait for it.
      await hub.close();
      await started.ready;
      // Still starting, it has no session to end: SIGTERM at once, not its stdin closed and a grace.
      expect(recordedEvents(log)).toEqual(["started", "request server/discover", "SIGTERM"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
