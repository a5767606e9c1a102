import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Hub } from "../../src/mcp/hub.js";
import { isAlive } from "../support/processes.js";
import { rejection } from "./hub-error.js";
import { expectNoChildren, FIXTURES, fixture, waitUntil, WrittenPids } from "./processes.js";

const dir = mkdtempSync(join(tmpdir(), "toolbridge-groups-"));
const logFile = join(dir, "servers.log");
const HUB_PROCESS = fileURLToPath(new URL("../support/hub-process.ts", import.meta.url));
let hub: Hub | undefined;
const written = new WrittenPids(dir);
const pidFile = (): string => written.file();
const readPid = (file: string): Promise<number> => written.read(file);

afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await expectNoChildren();
  await written.expectAllGone();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `sh -c 'sleep 1000 & <server>'`: the shape of npx, uvx and wrapper scripts, with a grandchild in the background. */
function behindShell(server: string, sleeperPidFile: string, exec: boolean) {
  return { command: "/bin/sh", args: ["-c", `sleep 1000 & echo $! > ${sleeperPidFile}; ${exec ? "exec " : ""}${server}`] };
}

describe("process groups", () => {
  it("ends what a server started in the background when the server is closed", async () => {
    const sleeper = pidFile();
    hub = await Hub.connect({ wrapped: behindShell(`${process.execPath} ${FIXTURES}toy-server.mjs`, sleeper, true) }, { stderrLogFile: logFile });
    expect(hub.servers()[0]?.status).toBe("connected");
    const sleeperPid = await readPid(sleeper);
    await hub.close();
    await waitUntil(() => !isAlive(sleeperPid), 3000, "the background sleep to end");
  });

  it("ends a server behind sh -c that ignores the end of its stdin, and its sibling", async () => {
    const sleeper = pidFile();
    const server = pidFile();
    hub = await Hub.connect(
      { wrapped: behindShell(`${process.execPath} ${FIXTURES}raw-hostile.mjs --pid-file ${server}`, sleeper, false) },
      { stderrLogFile: logFile },
    );
    expect(hub.servers()[0]?.status).toBe("connected");
    const pids = [await readPid(sleeper), await readPid(server)];
    await hub.close();
    await waitUntil(() => !pids.some(isAlive), 3000, "the server and its sibling to end");
  }, 15_000);

  // The server's own child, and one a level further down, under a shell that stays in the group.
  it.runIf(process.platform === "linux").each([
    ["a child of the server", (file: string) => `setsid sleep 1000 & echo $! > ${file};`],
    ["a grandchild of the server, under a shell in its group", (file: string) => `sh -c 'setsid sleep 1000 & echo $! > ${file}; wait' &`],
  ])("ends %s that left the group with setsid when the server is closed", async (_shape, escape) => {
    const escaped = pidFile();
    hub = await Hub.connect(
      { wrapped: { command: "/bin/sh", args: ["-c", `${escape(escaped)} exec ${process.execPath} ${FIXTURES}toy-server.mjs`] } },
      { stderrLogFile: logFile },
    );
    expect(hub.servers()[0]?.status).toBe("connected");
    const escapedPid = await readPid(escaped);
    expect(readFileSync(`/proc/${escapedPid}/stat`, "utf8").split(") ")[1]?.split(" ")[2]).toBe(String(escapedPid));
    await hub.close();
    await waitUntil(() => !isAlive(escapedPid), 3000, "the grandchild in a session of its own to end");
  });

  it("ends the rest of the group when the server itself dies", async () => {
    const sleeper = pidFile();
    hub = await Hub.connect({ wrapped: behindShell(`${process.execPath} ${FIXTURES}toy-server.mjs`, sleeper, true) }, { stderrLogFile: logFile });
    const sleeperPid = await readPid(sleeper);
    expect((await hub.callTool("crash", {})).isError).toBe(true);
    await waitUntil(() => !isAlive(sleeperPid), 5000, "the orphaned sleep to end");
  });

  it.runIf(process.platform === "linux")("reads a crashed server's stderr to its end: the error names what it wrote after its exit was heard", async () => {
    // The server exits at once; what says why reaches its stderr only later (written by a process outside its
    // group, which the transport neither signals nor waits for). Node may report an exit before it has read what
    // the process wrote just before: the transport must read the pipes to their end, not destroy them on exit.
    const late = pidFile();
    // The server waits for the writer to have left its group (it writes its pid after setsid): the group is signalled
    // as soon as the server exits, and would end a writer still in it.
    const script = `setsid sh -c 'echo $$ > ${late}; sleep 0.3; echo "fatal: API_KEY is not set" >&2' & while [ ! -s ${late} ]; do sleep 0.01; done; exit 3`;
    hub = await Hub.connect({ crashes: { command: "/bin/sh", args: ["-c", script], protocol: "2025-11-25" } }, { stderrLogFile: logFile });
    await readPid(late);
    const state = hub.servers()[0];
    expect(state?.status).toBe("failed");
    expect(state?.error).toMatch(/^the process exited during startup; stderr: fatal: API_KEY is not set$/);
  });

  it("signals the group before any grace when closed with terminate (toolbridge got a signal)", async () => {
    const log = join(dir, "terminate.log");
    hub = await Hub.connect({ raw: fixture("raw-hostile.mjs") }, { stderrLogFile: log });
    await hub.close({ terminate: true });
    // raw-hostile ignores EOF but dies of SIGTERM: it must never have seen its stdin end.
    expect(existsSync(log) ? readFileSync(log, "utf8") : "").not.toContain("stdin ended");
    hub = await Hub.connect({ raw: fixture("raw-hostile.mjs") }, { stderrLogFile: log });
    await hub.close();
    expect(readFileSync(log, "utf8")).toContain("[raw] stdin ended");
  });

  it("ends every server group when the process holding the hub is killed outright", async () => {
    const sleeper = pidFile();
    const server = pidFile();
    const stubborn = pidFile();
    const servers = {
      wrapped: behindShell(`${process.execPath} ${FIXTURES}raw-hostile.mjs --pid-file ${server}`, sleeper, false),
      stubborn: fixture("raw-hostile.mjs", "--ignore-sigterm", "--pid-file", stubborn),
    };
    const holder = spawn(process.execPath, ["--import", "tsx", HUB_PROCESS, JSON.stringify(servers), logFile], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    holder.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    await waitUntil(() => out.includes("ready") || holder.exitCode !== null, 20_000, "the hub process to start");
    expect(out).toContain("ready");
    const pids = [await readPid(sleeper), await readPid(server), await readPid(stubborn)];
    const exited = new Promise((resolve) => holder.once("exit", resolve));
    holder.kill("SIGKILL");
    await exited;
    await waitUntil(() => !pids.some(isAlive), 5000, "the servers of the killed process to end");
  }, 30_000);
});

describe("message size", () => {
  it("accepts a reply over the SDK's 10 MiB line limit by default", async () => {
    hub = await Hub.connect({ raw: fixture("raw-hostile.mjs") }, { stderrLogFile: logFile });
    const result = await hub.callTool("huge", { bytes: 11 * 2 ** 20 });
    expect((result.content[0] as { text: string }).text).toHaveLength(11 * 2 ** 20);
  });

  it("fails a reply over maxMessageBytes with its size, and the server serves the next call", async () => {
    hub = await Hub.connect({ raw: { ...fixture("raw-hostile.mjs"), maxMessageBytes: 2 ** 20 } }, { stderrLogFile: logFile });
    const error = await rejection(hub.callTool("huge", { bytes: 3 * 2 ** 20 }));
    expect(error.message).toContain("the reply of 3 MiB exceeds the limit of 1 MiB (maxMessageBytes)");
    expect(error.server).toBe("raw");
    expect(await hub.callTool("echo", {})).toMatchObject({ content: [{ type: "text", text: "ok" }] });
    expect(hub.servers()[0]?.restarts).toBe(0);
  });

  it("ends the connection, saying why, for an oversized message that answers no request", async () => {
    hub = await Hub.connect({ raw: { ...fixture("raw-hostile.mjs"), maxMessageBytes: 2 ** 20 } }, { stderrLogFile: logFile });
    const error = await rejection(hub.callTool("huge-notification", { bytes: 2 * 2 ** 20 }));
    expect(error.message).toContain("the reply of 2 MiB exceeds the limit of 1 MiB (maxMessageBytes)");
    expect(hub.servers()[0]?.error).toContain("exceeds the limit");
  }, 15_000);
});

describe("time", () => {
  it("caps a call whose server reports progress for ever at maxToolTimeMs", async () => {
    hub = await Hub.connect({ raw: { ...fixture("raw-hostile.mjs"), toolTimeoutMs: 300, maxToolTimeMs: 1000 } }, { stderrLogFile: logFile });
    let progress = 0;
    const error = await rejection(hub.callTool("progress-forever", {}, { onProgress: () => progress++ }));
    expect(error.code).toBe("timeout");
    expect(error.message).toBe('tools/call progress-forever on server "raw" did not finish within 1000 ms (maxToolTimeMs)');
    expect(progress).toBeGreaterThan(1);
  }, 10_000);

  it("delivers the progress notifications that arrived just before the result", async () => {
    hub = await Hub.connect({ raw: fixture("raw-hostile.mjs") }, { stderrLogFile: logFile });
    const seen: number[] = [];
    await hub.callTool("progress-then-result", {}, { onProgress: (p) => seen.push(p.progress) });
    expect(seen).toEqual([1, 2, 3]);
  });
});
