/** The bits of Markdown the generated references and the docs test share. */

/** GitHub's anchor for a heading's text: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
export function headingAnchor(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** Text that can stand in one table cell. */
export function tableCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}
