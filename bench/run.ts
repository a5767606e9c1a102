// Runs every bench part present, in order; each prints its own table.
import { readdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const dir = dirname(fileURLToPath(import.meta.url));
for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "run.ts").sort()) {
  const part = (await import(pathToFileURL(`${dir}/${file}`).href)) as { run?: () => Promise<void> };
  if (part.run !== undefined) await part.run();
}
// Some part leaves a handle open (not found yet) and the run would never end: end it once every table is printed.
process.exit(0);
