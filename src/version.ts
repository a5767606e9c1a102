import { readFileSync } from "node:fs";

/**
 * The package's own version, read once: the CLI's --version, the hub's clientInfo and the
 * bundled servers' serverInfo all report it. src/ and dist/ sit at the same depth, so one
 * relative path serves both.
 */
export const PACKAGE_VERSION: string = readPackageVersion();

function readPackageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    // Bundled into another program without our package.json: still start, with a placeholder.
    return "0.0.0";
  }
}
