import { readFileSync } from "node:fs";

/**
 * The package's own version, read once: the CLI's --version, the hub's clientInfo and the
 * bundled servers' serverInfo all report it. src/version.ts and dist/version.js sit one folder
 * below package.json; the bundled command line (dist/cli/) two.
 */
export const PACKAGE_VERSION: string = readPackageVersion();

function readPackageVersion(): string {
  for (const path of ["../package.json", "../../package.json"]) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8")) as { name?: string; version?: string };
      if (manifest.name === "toolbridge" && manifest.version) return manifest.version;
    } catch {
      // Not there: the next place.
    }
  }
  // Bundled into another program without our package.json: still start, with a placeholder.
  return "0.0.0";
}
