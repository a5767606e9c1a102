import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Hub } from "../../src/mcp/hub.js";
import { rejection } from "./hub-error.js";
import { expectNoChildren, FIXTURES, startHttpEverything, waitUntil, type HttpEverything } from "./processes.js";

const dir = mkdtempSync(join(tmpdir(), "toolbridge-http-streams-"));
const stderrLogFile = join(dir, "servers.log");
let hub: Hub | undefined;
let server: ChildProcess | undefined;
let everything: HttpEverything | undefined;

afterEach(async () => {
  await hub?.close();
  hub = undefined;
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  server = undefined;
  await everything?.stop();
  everything = undefined;
  await expectNoChildren();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** test/fixtures/servers/raw-http.mjs, a Streamable HTTP server that breaks its event streams on purpose. */
async function rawHttp(): Promise<string> {
  const child = spawn(process.execPath, [`${FIXTURES}raw-http.mjs`], { stdio: ["ignore", "pipe", "inherit"] });
  server = child;
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
  await waitUntil(() => out.includes("\n"), 10_000, "raw-http to listen");
  return out.trim();
}

/** Timers alive now: the SDK's reconnection timers are among them when they leak. */
const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

describe("Streamable HTTP event streams", () => {
  // The default tool timeout is a minute: only failing at once ends these before the test's bound.
  it("ends a call at once when its event stream is cut in the middle of an event", async () => {
    hub = await Hub.connect({ raw: { url: await rawHttp() } }, { stderrLogFile, restartBackoffMs: 10 });
    // The connection destroyed under the reply is a drop: the server is reconnected, and the call (not read-only) not made again.
    const outcome = await hub.callTool("cut", {}).then(
      (result) => (result.content[0] as { text: string }).text,
      (error: Error) => error.message,
    );
    expect(outcome).toMatch(
      /^(server "raw" reconnected \(the connection was cut\) during this call of cut: it may or may not have run\. Check before calling it again\.|tools\/call cut on server "raw" failed: the server's event stream was cut in the middle of an event)$/,
    );
    expect((await hub.callTool("echo", {})).content).toEqual([{ type: "text", text: "ok" }]);
  }, 20_000);

  it("fails a call at once when its event stream ends without the reply and cannot be resumed", async () => {
    hub = await Hub.connect({ raw: { url: await rawHttp() } }, { stderrLogFile });
    const error = await rejection(hub.callTool("ended", {}));
    expect(error.message).toBe(`tools/call ended on server "raw" failed: the server's event stream ended without the reply`);
  }, 20_000);

  it("leaves no reconnection timer behind once closed after a timed-out call", async () => {
    everything = await startHttpEverything("streamableHttp");
    const before = timers();
    hub = await Hub.connect({ everything: { url: everything.url } }, { stderrLogFile });
    const error = await rejection(hub.callTool("trigger-long-running-operation", { duration: 10, steps: 1 }, { timeoutMs: 500 }));
    expect(error.code).toBe("timeout");
    await hub.close();
    hub = undefined;
    // The streams the server ends with the session would have scheduled their reconnection by now.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(timers()).toBeLessThanOrEqual(before);
  }, 30_000);
});
