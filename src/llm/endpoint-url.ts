/**
 * Joining an endpoint's path onto a base URL the way a URL is built: into its path, before its
 * query. A base URL may carry a query (Azure's `?api-version=…`, a gateway's `?key=…`), and
 * `${base}/models` would put the path inside it.
 */
export function endpointUrl(base: string, path: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}${path}`;
  return url.href;
}

/** The base URL without its query, and the query's parameters (for a client that adds them to each request). */
export function queryApart(base: string): { url: string; query: Record<string, string> | undefined } {
  const url = new URL(base);
  if (url.search === "") return { url: base, query: undefined };
  const query = Object.fromEntries(url.searchParams);
  url.search = "";
  url.hash = "";
  return { url: url.href.replace(/\/+$/, ""), query };
}
