import type { Key, Paste } from "./keys.js";

/**
 * Ctrl-R in the input box: a reverse incremental search over the messages sent, as a shell's.
 * Typing narrows the query, the newest message holding it is shown; Ctrl-R again goes to an
 * older one; Enter (or a key that moves the cursor) takes the match into the input box to
 * edit or send; Esc, Ctrl-G or Ctrl-C gives back what was being typed.
 */
export interface HistorySearch {
  query: string;
  /** The history index shown, or undefined while nothing holds the query (or it is empty). */
  match: number | undefined;
}

export const NEW_SEARCH: HistorySearch = { query: "", match: undefined };

export type SearchStep = { search: HistorySearch } | { accept: string } | { cancel: true };

export function applySearchKey(search: HistorySearch, key: Key | Paste, history: readonly string[]): SearchStep {
  switch (key.kind) {
    case "text":
    case "paste": {
      const query = search.query + key.text;
      // The match shown stays while it still holds the longer query, as in a shell.
      return { search: { query, match: newestHolding(history, query, search.match ?? history.length - 1) } };
    }
    case "backspace": {
      const query = [...search.query].slice(0, -1).join("");
      return { search: { query, match: query === "" ? undefined : newestHolding(history, query, history.length - 1) } };
    }
    case "ctrl":
      if (key.letter === "r") {
        if (search.query === "" || search.match === undefined) return { search };
        return { search: { ...search, match: newestHolding(history, search.query, search.match - 1) ?? search.match } };
      }
      if (key.letter === "g" || key.letter === "c") return { cancel: true };
      return accept(search, history);
    case "escape":
      return { cancel: true };
    case "paste-start":
    case "paste-end":
    case "other":
      return { search };
    default:
      return accept(search, history);
  }
}

function accept(search: HistorySearch, history: readonly string[]): SearchStep {
  return search.match === undefined ? { cancel: true } : { accept: history[search.match] ?? "" };
}

/** The newest entry at or before `from` that holds `query`. */
function newestHolding(history: readonly string[], query: string, from: number): number | undefined {
  for (let index = Math.min(from, history.length - 1); index >= 0; index -= 1) {
    if (history[index]?.includes(query)) return index;
  }
  return undefined;
}
