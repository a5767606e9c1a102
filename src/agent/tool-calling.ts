import { withPromptToolCalling, withTextToolCallFallback } from "../toolcall/middleware.js";
import type { PromptFormat } from "../toolcall/prompt-families.js";
import type { ToolCallingMiddlewares } from "./tool-mode.js";

/** The toolcall module's wrappers: prompt mode (in the given call format, or the model family's), and dual mode for native. */
export function toolCallingFor(promptFormat: PromptFormat | "auto" = "auto"): ToolCallingMiddlewares {
  return {
    prompt: (model) => withPromptToolCalling(model, { promptFormat }),
    textFallback: (model) => withTextToolCallFallback(model),
  };
}
