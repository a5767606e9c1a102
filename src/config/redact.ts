/**
 * Secrets never reach a terminal: the user name, password and query values of a URL (where
 * servers and model gateways often take their token) and the keys toolbridge was given,
 * wherever a message quotes them (a model server's 401 that echoes the key, say).
 */

const MASK = "***";
/** Shorter values are not masked: "EMPTY" or "none" as a key would mask ordinary words. */
const MIN_SECRET_LENGTH = 8;
const secrets = new Set<string>();

/** Masks this value in every message made from now on (API keys, header values). */
export function registerSecret(value: string | undefined): void {
  if (value !== undefined && value.length >= MIN_SECRET_LENGTH) secrets.add(value);
}

/** The URL with its user name, password and query values masked; text that is no URL comes back as it is. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (!/^(https?|wss?|rediss?):$/.test(parsed.protocol)) return url;
  const hadUser = parsed.username !== "" || parsed.password !== "";
  if (hadUser) {
    parsed.username = MASK;
    parsed.password = "";
  }
  const hadQuery = parsed.search !== "";
  if (hadQuery) {
    const params = [...parsed.searchParams.keys()].map((name) => `${encodeURIComponent(name)}=${MASK}`);
    parsed.search = params.join("&");
  }
  if (!hadUser && !hadQuery) return url;
  // URL encodes the mask; show it as written.
  return parsed.href.replaceAll(encodeURIComponent(MASK), MASK);
}

const URL_IN_TEXT = /\b(?:https?|wss?):\/\/[^\s"'<>`]+/g;

/** Every URL in the text redacted, and every registered secret masked. */
export function redactSecrets(text: string): string {
  let out = text.replace(URL_IN_TEXT, (url) => {
    // A URL at the end of a sentence keeps its full stop outside.
    const trail = /[).,;:]+$/.exec(url)?.[0] ?? "";
    return redactUrl(url.slice(0, url.length - trail.length)) + trail;
  });
  return maskSecrets(out);
}

/** Every registered secret masked; URLs and the rest of the text as they are. */
export function maskSecrets(text: string): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.replaceAll(secret, MASK);
  return out;
}

/**
 * Every string in a server's answer (a tool result, a resource, a prompt) with the registered
 * secrets masked: a server that quotes the token it was sent back in an error hands it to the
 * model and the terminal otherwise. The same object when nothing was masked.
 */
export function maskSecretsIn<T>(value: T): T {
  // Looked for first, without copying: a large result that quotes no secret (nearly all) is not rebuilt.
  return secrets.size === 0 || !holdsSecret(value) ? value : (maskValue(value) as T);
}

function holdsSecret(value: unknown): boolean {
  if (typeof value === "string") return maskSecrets(value) !== value;
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some(holdsSecret);
  for (const key in value) if (Object.hasOwn(value, key) && holdsSecret((value as Record<string, unknown>)[key])) return true;
  return false;
}

function maskValue(value: unknown): unknown {
  if (typeof value === "string") return maskSecrets(value);
  if (value === null || typeof value !== "object") return value;
  let changed = false;
  const masked = (item: unknown): unknown => {
    const out = maskValue(item);
    if (out !== item) changed = true;
    return out;
  };
  const copy = Array.isArray(value) ? value.map(masked) : Object.fromEntries(Object.entries(value).map(([key, item]) => [key, masked(item)]));
  return changed ? copy : value;
}
