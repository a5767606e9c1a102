/** TEST INFRASTRUCTURE: the MCP conformance suite's CLI, run on Node 22 (it needs fs.globSync), whatever Node runs the tests. */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { LOOPBACK_PRELOAD } from "../mcp/processes.js";
import { nodeBinary } from "./node-releases.js";

/** The two releases the suite runs: 0.1.16 (2025-11-25) and 0.2.0-alpha.12 (2026-07-28 too), installed as conformance-next. */
const RELEASES = {
  current: fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url)),
  next: fileURLToPath(new URL("../../node_modules/conformance-next/dist/index.js", import.meta.url)),
};

/** Runs `conformance ARGS` of that release; the output without its colours, and the exit code. */
export function conformance(args: string[], timeoutMs: number, release: keyof typeof RELEASES = "current"): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      nodeBinary(22),
      [RELEASES[release], ...args],
      {
        // Its scenario servers listen() with no host; the preload (inherited through NODE_OPTIONS) keeps them on 127.0.0.1.
        env: { ...process.env, NODE_OPTIONS: `--require ${LOOPBACK_PRELOAD}` },
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`.replace(/\u001b\[[0-9;]*m/g, "");
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output });
      },
    );
  });
}
