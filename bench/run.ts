// Runs every bench part present, in order, each in a process of its own; each prints its own table.
// A process per part: what one part leaves running (a server, a timer) cannot take CPU in another
// part's measurement, which counts its own process's CPU.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const dir = dirname(fileURLToPath(import.meta.url));
let failed = 0;
for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "run.ts").sort()) {
  const url = pathToFileURL(`${dir}/${file}`).href;
  // A part's run() resolves once its table is printed; whatever it left open ends with its process.
  const script = `const part = await import(${JSON.stringify(url)}); if (part.run) await part.run(); process.exit(0);`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: "inherit" });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) {
    failed++;
    console.error(`bench: ${file} failed (exit ${code})`);
  }
}
process.exitCode = failed ? 1 : 0;
