import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Hub } from "../../src/mcp/hub.js";
import { ProcessGroupTransport } from "../../src/mcp/transport/stdio.js";
import { expectNoChildren, fixture } from "./processes.js";

afterEach(async () => {
  await expectNoChildren();
});

/** The process group and session of a process, from /proc (Linux). */
function groupAndSession(pid: number): { pgid: number; sid: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const [, , pgid, sid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { pgid: Number(pgid), sid: Number(sid) };
}

describe.runIf(process.platform === "linux")("a stdio server's process group", () => {
  it("is led by the server, inside toolbridge's session (a new session is a scheduling group of its own)", async () => {
    const transport = new ProcessGroupTransport({ command: process.execPath, args: ["-e", "process.stdin.resume()"] });
    await transport.start();
    try {
      const pid = transport.pid as number;
      expect(groupAndSession(pid)).toEqual({ pgid: pid, sid: groupAndSession(process.pid).sid });
    } finally {
      await transport.close();
    }
  });

  it("gets the arguments as they were given, a leading dash and spaces included", async () => {
    const args = ["-e", "process.stderr.write(JSON.stringify(process.argv.slice(1)))", "--", "-x", "two words", "$HOME", "'q'"];
    const transport = new ProcessGroupTransport({ command: process.execPath, args });
    let stderr = "";
    transport.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    await transport.start();
    await closed;
    expect(JSON.parse(stderr)).toEqual(["-x", "two words", "$HOME", "'q'"]);
  });

  it("says command not found for a command that does not exist", async () => {
    const hub = await Hub.connect({ gone: { command: "toolbridge-no-such-command" } }, { stderrLogFile: "/dev/null" });
    try {
      expect(hub.servers()[0]?.error).toBe("command not found: toolbridge-no-such-command");
    } finally {
      await hub.close();
    }
  });

  it("serves calls as before", async () => {
    const hub = await Hub.connect({ toy: fixture("toy-server.mjs") }, { stderrLogFile: "/dev/null" });
    try {
      const result = await hub.callTool("toy__pid", {});
      const pid = Number((result.content[0] as { text: string }).text);
      expect(groupAndSession(pid).pgid).toBe(pid);
    } finally {
      await hub.close();
    }
  });
});
