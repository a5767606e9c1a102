import type { ToolCallingMiddlewares } from "./tool-mode.js";

// Seam until src/toolcall lands: withPromptToolCalling / withTextToolCallFallback plug in here.
export const defaultToolCalling: ToolCallingMiddlewares = {
  prompt: (model) => model,
  textFallback: (model) => model,
};
