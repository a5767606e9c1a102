import { withPromptToolCalling, withTextToolCallFallback } from "../toolcall/middleware.js";
import type { ToolCallingMiddlewares } from "./tool-mode.js";

/** The toolcall module's wrappers: prompt mode, and dual mode for native. */
export const defaultToolCalling: ToolCallingMiddlewares = {
  prompt: (model) => withPromptToolCalling(model),
  textFallback: (model) => withTextToolCallFallback(model),
};
