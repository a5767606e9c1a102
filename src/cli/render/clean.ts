/**
 * Text from a server or a model made safe for a terminal: escape sequences and control
 * characters (which could move the cursor, rewrite what the user sees or set the title)
 * are dropped; newlines and tabs stay.
 */
export function cleanText(text: string): string {
  return text
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, "")
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g, "")
    .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, "");
}

/** One line: as cleanText, newlines and tabs made spaces. */
export function cleanLine(text: string): string {
  return cleanText(text).replace(/\s+/g, " ").trim();
}
