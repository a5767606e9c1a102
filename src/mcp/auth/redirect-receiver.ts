import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const PAGE = `<!doctype html><meta charset="utf-8"><title>toolbridge</title>
<p style="font-family: sans-serif">toolbridge is logged in. You may close this window.</p>`;
const FAILED_PAGE = `<!doctype html><meta charset="utf-8"><title>toolbridge</title>
<p style="font-family: sans-serif">The login failed; toolbridge says why. You may close this window.</p>`;

export interface RedirectReceiver {
  /** http://127.0.0.1:PORT/callback */
  url: string;
  /**
   * The query of the first redirect that carries `state` (a code, or an error; `iss` with either),
   * for the caller to check; rejects after `timeoutMs`.
   */
  callback(state: string | undefined, timeoutMs: number): Promise<URLSearchParams>;
  close(): Promise<void>;
}

/**
 * The loopback end of the browser login (RFC 8252): a listener on 127.0.0.1 only, for the one
 * redirect that brings the authorization code back. Anything else it is sent gets a 404.
 */
export async function startRedirectReceiver(port = 0): Promise<RedirectReceiver> {
  let deliver: ((query: URLSearchParams) => boolean) | undefined;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "GET" || url.pathname !== "/callback" || !deliver?.(url.searchParams)) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    const ok = url.searchParams.has("code");
    res.writeHead(ok ? 200 : 400, { "content-type": "text/html; charset=utf-8", connection: "close" }).end(ok ? PAGE : FAILED_PAGE);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(new Error(`cannot receive the login's redirect on 127.0.0.1:${port}: ${error.code ?? error.message}`)),
    );
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return {
    url,
    callback: (state, timeoutMs) =>
      new Promise<URLSearchParams>((resolve, reject) => {
        const timer = setTimeout(() => {
          deliver = undefined;
          reject(new Error(`no answer from the browser within ${timeoutMs / 1000} s; the login was given up`));
        }, timeoutMs);
        deliver = (query) => {
          // A redirect for another attempt (or a stray request) is not ours to take.
          if (state !== undefined && query.get("state") !== state) return false;
          clearTimeout(timer);
          deliver = undefined;
          resolve(query);
          return true;
        };
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
