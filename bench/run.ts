// Runs every bench part present, in order, each in a process of its own; each prints its own table.
// A process per part: what one part leaves running (a server, a timer) cannot take CPU in another
// part's measurement, which counts its own process's CPU.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const dir = dirname(fileURLToPath(import.meta.url));
const RUN_PART = fileURLToPath(new URL("./support/run-part.ts", import.meta.url));
let failed = 0;
for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "run.ts").sort()) {
  const child = spawn(process.execPath, ["--import", "tsx", RUN_PART, `${dir}/${file}`], { stdio: "inherit" });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) {
    failed++;
    console.error(`bench: ${file} failed (exit ${code})`);
  }
}
process.exitCode = failed ? 1 : 0;
