import { readFile } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import { HttpError } from "./http.js";

/**
 * dist/web, from src/gateway as from dist/gateway and from the bundled command line's chunks in dist/cli:
 * this file stays two folders below the package root, as src/config/bundled-servers.ts does.
 */
const WEB_ROOT = fileURLToPath(new URL("../../dist/web/", import.meta.url));
const FILES: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/app.css": { file: "app.css", type: "text/css; charset=utf-8" },
};
/**
 * A page that runs only our own script: no inline code, nothing from elsewhere, images only as
 * data: URLs; frames only from here (the MCP Apps frames, each sandboxed with a policy of its own).
 */
const PAGE_POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The page's files (GET, no key); false when `path` is none of them. */
export async function sendWebFile(path: string, res: ServerResponse): Promise<boolean> {
  const entry = Object.hasOwn(FILES, path) ? FILES[path] : undefined;
  if (!entry) return false;
  let body: Buffer;
  try {
    body = await readFile(`${WEB_ROOT}${entry.file}`);
  } catch {
    throw new HttpError(404, "The web chat is not built: run `npm run build`", "invalid_request_error", "not_found");
  }
  res.writeHead(200, { "content-type": entry.type, "content-security-policy": PAGE_POLICY, "x-content-type-options": "nosniff", "cache-control": "no-cache" });
  res.end(body);
  return true;
}
