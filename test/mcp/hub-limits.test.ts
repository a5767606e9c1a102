import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Hub } from "../../src/mcp/hub.js";
import { MAX_LIST_PAGES } from "../../src/mcp/listing.js";
import { expectNoChildren, fixture, waitUntil } from "./processes.js";

const dir = mkdtempSync(join(tmpdir(), "toolbridge-limits-"));
const logFile = join(dir, "servers.log");
let hub: Hub | undefined;

afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await expectNoChildren();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function state(name: string) {
  const found = hub?.servers().find((s) => s.name === name);
  if (!found) throw new Error(`no server ${name}`);
  return found;
}

function logText(): string {
  return existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
}

function textOf(result: Awaited<ReturnType<Hub["callTool"]>>): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}

describe("listings", () => {
  it("fails a server whose tools/list pages never end at startup with the limit, not a startup timeout", async () => {
    hub = await Hub.connect(
      { endless: { ...fixture("hostile-lists.mjs", "--endless-at-start"), startupTimeoutMs: 60_000 } },
      { stderrLogFile: logFile },
    );
    expect(state("endless")).toMatchObject({
      status: "failed",
      error: `tools/list of server "endless" still had a next page after ${MAX_LIST_PAGES} pages (the limit)`,
    });
  });

  it("keeps the old tools when a refresh pages without end, and logs the limit", async () => {
    hub = await Hub.connect({ lists: fixture("hostile-lists.mjs") }, { stderrLogFile: logFile });
    expect(hub.tools().map((t) => t.name)).toEqual(["flood", "list-count", "go-endless"]);
    await hub.callTool("go-endless", {});
    await waitUntil(() => logText().includes("could not refresh tools"), 20_000, "the refresh to fail");
    expect(logText()).toContain(
      `could not refresh tools: tools/list of server "lists" still had a next page after ${MAX_LIST_PAGES} pages (the limit)`,
    );
    expect(state("lists").status).toBe("connected");
    expect(hub.tools().map((t) => t.name)).toEqual(["flood", "list-count", "go-endless"]);
  });

  it("answers a flood of list_changed notifications with at most two listings of each kind, not one per notification", async () => {
    hub = await Hub.connect({ lists: fixture("hostile-lists.mjs") }, { stderrLogFile: logFile });
    const changed: string[] = [];
    hub.on((event) => {
      if (event.type.endsWith("-changed")) changed.push(event.type);
    });
    await hub.callTool("flood", { count: 20_000, kinds: ["tools"] });
    await hub.callTool("flood", { count: 2_000, kinds: ["resources", "prompts"] });
    // Every notification was sent before the flood's answer, and each later listing answers
    // after them: once the listings settle, list-count shows what they cost.
    await waitUntil(() => changed.filter((type) => type === "tools-changed").length >= 1, 10_000, "a refresh");
    const counts = async () => JSON.parse(textOf(await hub!.callTool("list-count", {}))) as Record<string, number>;
    // The fixture holds listings while it floods: the first notification of each kind starts a
    // listing, every later one finds it in flight. Then exactly one more runs.
    await waitUntil(() => changed.filter((type) => type === "tools-changed").length >= 2, 10_000, "the pending refresh");
    await waitUntil(() => changed.filter((type) => type === "prompts-changed").length >= 2, 10_000, "the pending refresh");
    await waitUntil(() => changed.filter((type) => type === "resources-changed").length >= 2, 10_000, "the pending refresh");
    // One listing at startup, one in flight during the flood, one pending after it.
    expect(await counts()).toEqual({ tools: 3, resources: 3, prompts: 3 });
    expect(changed.length).toBe(6);
  });
});
