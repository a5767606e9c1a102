/**
 * Redirects followed as fetch follows them, except that one to another scheme (file:, data:,
 * ftp:) is refused with one line naming the URL that redirected and the scheme it pointed to.
 * The global fetch refuses those too, but in undici's words ("fetch failed", "not implemented...
 * yet..."), which the caller then reports as a server it cannot reach.
 */

/** The statuses fetch follows. */
export const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Fetch's own bound on a chain of redirects. */
const MAX_REDIRECTS = 20;
/** What fetch drops from a request redirected to another origin. */
const CREDENTIALS = ["authorization", "proxy-authorization", "cookie", "host"];
/** What fetch drops from a request whose body a redirect drops. */
const BODY_HEADERS = ["content-type", "content-length", "content-encoding", "content-language", "content-location"];

/** A server redirected a request to a URL that is not http: or https:. */
export class RedirectSchemeError extends Error {
  override readonly name = "RedirectSchemeError";
  constructor(from: URL, scheme: string) {
    super(`${from.origin}${from.pathname} redirected to a ${scheme} URL, which is not followed (only http: and https: redirects are)`);
  }
}

/** The one a chain of causes holds, if any: SDKs wrap what their fetch threw. */
export function redirectSchemeErrorIn(error: unknown): RedirectSchemeError | undefined {
  for (let depth = 0; depth < 5 && error instanceof Error; depth++, error = error.cause) {
    if (error instanceof RedirectSchemeError) return error;
  }
  return undefined;
}

/** The request a redirect leads to, made as fetch makes it; a redirect to another scheme throws. */
export function redirectHop(from: URL, init: RequestInit, status: number, location: string): { url: URL; init: RequestInit } {
  const url = new URL(location, from);
  refuseOtherScheme(from, url);
  const headers = new Headers(init.headers);
  if (url.origin !== from.origin) for (const name of CREDENTIALS) headers.delete(name);
  // A 303, and a 301 or 302 of a POST, become a GET without the body.
  const method = init.method?.toUpperCase() ?? "GET";
  if (status === 303 ? method !== "HEAD" : status <= 302 && method === "POST") {
    for (const name of BODY_HEADERS) headers.delete(name);
    return { url, init: { ...init, method: "GET", body: null, headers } };
  }
  return { url, init: { ...init, headers } };
}

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * `base` with redirects followed here, one hop at a time, so that one to another scheme is
 * refused in our words. A caller that asks for `manual` or `error` gets the answer as it is,
 * unless it points to another scheme (the MCP SDK follows same-origin redirects itself).
 */
export function schemeCheckedFetch(base: Fetch = fetch): Fetch {
  return async (input, init = {}) => {
    let url = new URL(input);
    if (init.redirect === "manual" || init.redirect === "error") {
      const response = await base(url, init);
      const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get("location") : null;
      if (location !== null && URL.canParse(location, url)) refuseOtherScheme(url, new URL(location, url));
      return response;
    }
    let request = init;
    for (let hops = 0; ; hops++) {
      const response = await base(url, { ...request, redirect: "manual" });
      const location = response.headers.get("location");
      if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
      if (hops === MAX_REDIRECTS) throw new TypeError("fetch failed", { cause: new Error(`${url.origin}${url.pathname} redirected more than ${MAX_REDIRECTS} times (the limit)`) });
      await response.body?.cancel().catch(() => undefined);
      const next = redirectHop(url, request, response.status, location);
      // A streamed body was read by the first request; fetch refuses to send it again too.
      if (next.init.body instanceof ReadableStream) throw new TypeError("fetch failed", { cause: new Error(`cannot follow the redirect from ${url.origin}${url.pathname} with a streamed body`) });
      ({ url, init: request } = next);
    }
  };
}

function refuseOtherScheme(from: URL, target: URL): void {
  if (target.protocol !== "http:" && target.protocol !== "https:") throw new RedirectSchemeError(from, target.protocol);
}
