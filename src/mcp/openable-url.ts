/**
 * Whether a URL a server gave (an OAuth login page, a URL elicitation) may be opened in the
 * user's browser, and the one string to show and to open. Showing one text and opening another
 * is how a link deceives: the person approves `href`, nothing else.
 */
export type OpenableUrl = { ok: true; href: string } | { ok: false; reason: string };

// C0 and C1 controls, DEL, and the invisible characters that make text read as other text
// (soft hyphen, bidi marks and overrides, zero-width spaces and joiners, the BOM).
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/u;
const LOOPBACK_HOSTNAME = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * https anywhere, http only on this machine (a loopback login page); no `file:`, `javascript:` or
 * an app's scheme (`vscode:` …), which would run something here. A URL with control characters
 * is refused, not cleaned: a cleaned copy is not what the server sent. Host names are shown as
 * the URL parser writes them, so a look-alike international name appears in punycode (xn--…).
 */
export function openableUrl(raw: string): OpenableUrl {
  if (CONTROL.test(raw)) return { ok: false, reason: "the URL contains control characters" };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "it is not a valid URL" };
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK_HOSTNAME.test(url.hostname))) {
    return { ok: false, reason: `only https URLs (or http on this machine) are opened, not ${url.protocol}` };
  }
  // `https://bank.example@evil.example` reads as the bank and goes to evil.example.
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "the URL carries a user name before its host" };
  return { ok: true, href: url.href };
}
