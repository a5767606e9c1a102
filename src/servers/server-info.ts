import { readFileSync } from "node:fs";

// The bundled servers report the package's own version in serverInfo.
// src/servers/ and dist/servers/ sit at the same depth, so one relative path serves both.
const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

export const BUNDLED_SERVER_VERSION: string = pkg.version;
