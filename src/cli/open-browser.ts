import { spawn } from "node:child_process";
import { openableUrl } from "../mcp/openable-url.js";
import { warnWithUrl } from "./errors.js";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Shows the user an authorization URL: printed on stderr (for a remote shell, where no browser
 * opens here), and opened with `$BROWSER` or the platform's opener. Nothing waits for the browser.
 */
export function openInBrowser(server: string, url: URL, env: Env = process.env): void {
  // Printed whole: it is the user's own login (its state and challenge are no secret from them).
  warnWithUrl(`log in to server "${server}" in your browser; if none opens, visit`, url.href, env);
  launchBrowser(url.href, env);
}

/**
 * Opens `url` with `$BROWSER` or the platform's opener, detached; nothing of its output reaches
 * the terminal. Callers show the URL and ask first; a URL that is no web page is never opened.
 */
export function launchBrowser(url: string, env: Env = process.env): void {
  if (!openableUrl(url).ok) return;
  const [command, ...args] = env.BROWSER?.trim()
    ? [...env.BROWSER.trim().split(/\s+/), url]
    : process.platform === "darwin"
      ? ["open", url]
      : process.platform === "win32"
        ? ["rundll32", "url.dll,FileProtocolHandler", url]
        : ["xdg-open", url];
  try {
    const child = spawn(command as string, args, { detached: true, stdio: "ignore" });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // The URL is on screen; that is the fallback.
  }
}
