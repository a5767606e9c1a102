/**
 * TEST INFRASTRUCTURE ONLY: an `npm` to put first on PATH, standing in for the registry when
 * toolbridge installs llama.cpp's runtime. It writes its arguments, one a line, to `args` in its
 * folder, logs two tarballs as npm does at --loglevel=http, and then either links this
 * checkout's own node-llama-cpp into `--prefix`'s node_modules (as an install would put it
 * there) or fails as npm does when the registry cannot be reached.
 */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** This checkout's node-llama-cpp (its dist/index.js's folder's parent), which the fake install links to. */
const REAL = join(dirname(createRequire(import.meta.url).resolve("node-llama-cpp")), "..");

export interface FakeNpm {
  /** The folder holding `npm`: put it first on PATH. */
  bin: string;
  /** The arguments npm was run with, once it has been. */
  args(): Promise<string[] | undefined>;
}

export async function writeFakeNpm(bin: string, outcome: "install" | "offline"): Promise<FakeNpm> {
  await mkdir(bin, { recursive: true });
  const record = join(bin, "args");
  const script = `#!${process.execPath}
const fs = require("node:fs");
const path = require("node:path");
const args = process.argv.slice(2);
fs.writeFileSync(${JSON.stringify(record)}, args.join("\\n"));
for (const name of ["node-llama-cpp/-/node-llama-cpp-3.21.1", "@node-llama-cpp/linux-x64/-/linux-x64-3.21.1"]) {
  console.error("npm http fetch GET 200 https://registry.npmjs.org/" + name + ".tgz 12ms (cache miss)");
}
if (${JSON.stringify(outcome)} === "offline") {
  console.error("npm error code ENOTFOUND");
  console.error("npm error request to https://registry.npmjs.org/node-llama-cpp failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org");
  process.exit(1);
}
const modules = path.join(args[args.indexOf("--prefix") + 1], "node_modules");
fs.mkdirSync(modules, { recursive: true });
fs.symlinkSync(${JSON.stringify(REAL)}, path.join(modules, "node-llama-cpp"));
console.log("added 2 packages in 1s");
`;
  await writeFile(join(bin, "npm"), script);
  await chmod(join(bin, "npm"), 0o755);
  return {
    bin,
    args: async () => {
      try {
        return (await readFile(record, "utf8")).split("\n");
      } catch {
        return undefined;
      }
    },
  };
}
