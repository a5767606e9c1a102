import type { Colors } from "../render/colors.js";
import type { AgentSession } from "./session.js";
import type { ToolResults } from "./tool-results.js";

/**
 * What every slash command is handed, in a file of its own (as Gemini CLI's ui/commands/types.ts
 * holds its CommandContext): the commands in their own files and the table that runs them both
 * import it, and neither imports the other for it.
 */
export interface SlashContext {
  session: AgentSession;
  colors: Colors;
  print: (text: string) => void;
  columns: number;
  /** Aborted when the user cancels the command (Esc in the chat). */
  signal?: AbortSignal;
  /** The tool results of this chat, for /result and /image. */
  toolResults?: ToolResults;
  /** Asks the person a yes/no question; absent where nobody can be asked (piped chat): then the answer is no. */
  confirm?: (question: string) => Promise<boolean>;
  /** The conversation was replaced (/clear, /load, /compact): what is said next is saved as a new session, never over the old one. */
  newConversation?: () => void;
}
