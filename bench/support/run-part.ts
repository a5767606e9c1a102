// Runs one bench part, the file named by the first argument, in this process; run.ts starts one per part.
// A file, not `node -e`: code run with -e is passed on to what a part forks (node-llama-cpp's binary test).
import { pathToFileURL } from "node:url";

const part = (await import(pathToFileURL(process.argv[2] ?? "").href)) as { run?: () => Promise<void> };
if (part.run !== undefined) await part.run();
// Whatever the part left open ends with its process.
process.exit(0);
