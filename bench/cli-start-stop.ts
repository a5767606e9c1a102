/**
 * What a person waits for at the shell while a server will not start: Ctrl-C (SIGINT) to
 * `run` while a server has not answered the version probe, until the command has exited;
 * and `call get-date` (a plain name) while a server that failed to start last time now hangs
 * on initialize for its ten-minute startup timeout, beside `call time__get-date`, which
 * starts the time server alone. Median of REPEATS, each a fresh process.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startVllmServer } from "../test/support/vllm-server.js";
import { median } from "./support/median.js";

const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const HANG = fileURLToPath(new URL("../test/fixtures/servers/hang-on-initialize.mjs", import.meta.url));
const REPEATS = 5;

/** Runs the CLI; `interruptAfter` (ms) sends SIGINT then and times from it; else times the whole run. */
function timed(args: string[], home: string, interruptAfter?: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: home, XDG_STATE_HOME: join(home, "state"), NO_COLOR: "1" };
    let start = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], { cwd: home, env, stdio: "ignore" });
    if (interruptAfter !== undefined)
      setTimeout(() => {
        start = performance.now();
        child.kill("SIGINT");
      }, interruptAfter);
    child.once("error", reject);
    child.once("exit", () => resolve(performance.now() - start));
  });
}

export async function run(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), "toolbridge-bench-start-stop-"));
  const model = await startVllmServer({ replies: [] });
  try {
    const time = { command: process.execPath, args: [CLI, "serve", "time"] };
    const hanging = join(home, "hanging.json");
    writeFileSync(hanging, JSON.stringify({ mcpServers: { time, slow: { command: process.execPath, args: [HANG], startupTimeoutMs: 600_000 } } }));
    const interrupted: number[] = [];
    for (let i = 0; i < REPEATS; i++) interrupted.push(await timed(["run", "-c", hanging, "--base-url", model.url, "hi"], home, 1500));
    console.log(`\nrun, SIGINT while a server hangs in its start-up: median ${median(interrupted).toFixed(0)} ms of ${REPEATS} from the signal to the exit`);

    // `broken` fails at once the first time (remembered as failed), then hangs: its config entry stays the same.
    const marker = join(home, "hang-now");
    const broken = { command: "/bin/sh", args: ["-c", `if [ -e ${marker} ]; then exec ${process.execPath} ${HANG}; else exit 1; fi`], startupTimeoutMs: 600_000 };
    const failing = join(home, "failing.json");
    writeFileSync(failing, JSON.stringify({ mcpServers: { time, broken } }));
    await timed(["tools", "-c", failing], home);
    writeFileSync(marker, "");
    const plain: number[] = [];
    const qualified: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      plain.push(await timed(["call", "get-date", "-c", failing], home));
      qualified.push(await timed(["call", "time__get-date", "-c", failing], home));
    }
    console.log(`call get-date, a server that failed last time now hanging: median ${median(plain).toFixed(0)} ms of ${REPEATS}; call time__get-date (time alone): ${median(qualified).toFixed(0)} ms`);
  } finally {
    await model.close();
    rmSync(home, { recursive: true, force: true });
  }
}
