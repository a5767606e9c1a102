/**
 * What every front end's approval says beside the tool and its arguments, in one place: the
 * terminal's dialog and the web chat's show the same words. Plain text, no imports: the web
 * page's bundle takes it too.
 */

/** Said when the server marks the tool `destructiveHint: true`. */
export const DESTRUCTIVE_NOTE = "The server says this tool may change or delete data.";

/** Said while the arguments have not all been seen (each front end adds how to scroll); Allow waits until they have. */
export const UNREAD_ARGUMENTS_NOTE = "Scroll to the end of the arguments before allowing";
