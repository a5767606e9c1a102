import { afterEach, describe, expect, it } from "vitest";
import { Hub } from "../../src/mcp/hub.js";
import { expectNoChildren, fixture, waitUntil } from "./processes.js";

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
});
