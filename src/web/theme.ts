/**
 * The page's theme: the person's choice (`data-theme` on the root element, kept in this
 * browser), else the system's. One place decides it for the header's switch and an MCP App's host context.
 */

export type Theme = "dark" | "light";

const SYSTEM_DARK = "(prefers-color-scheme: dark)";

export function themeOf(chosen: string | undefined): Theme {
  return chosen ? (chosen === "dark" ? "dark" : "light") : matchMedia(SYSTEM_DARK).matches ? "dark" : "light";
}

export function pageTheme(): Theme {
  return themeOf(document.documentElement.dataset.theme);
}

/** Calls `changed` whenever the page's theme may have changed (the person's switch, or the system's); returns the unsubscribe. */
export function watchTheme(changed: () => void): () => void {
  const observer = new MutationObserver(changed);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
  const system = matchMedia(SYSTEM_DARK);
  system.addEventListener("change", changed);
  return () => {
    observer.disconnect();
    system.removeEventListener("change", changed);
  };
}
