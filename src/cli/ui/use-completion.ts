import { useEffect, useRef } from "react";
import type { Completion } from "../chat/completion.js";
import { menuKey, openCompletion, type CompletionMenu } from "./completion-menu.js";
import type { Key, Paste } from "./keys.js";
import type { PromptState } from "./prompt-editor.js";
import type { UiStore } from "./ui-store.js";

/** Asks what the word at the cursor can become (see chat/completion.ts). */
export type Completer = (text: string, cursor: number, signal: AbortSignal) => Promise<Completion | undefined>;

interface WithCompletion {
  prompt: PromptState;
  completion: CompletionMenu | undefined;
}

/**
 * Tab completion for the prompt: returns the key handler that goes first. Tab asks the
 * completer without waiting for it, so typing (and the answer streaming) goes on; the answer
 * is used only if the input is still what it was made for.
 */
export function useCompletion<T extends WithCompletion>(ui: UiStore<T>, complete: Completer | undefined): (key: Key | Paste) => boolean {
  const pending = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => pending.current?.abort(), []);

  const setPrompt = (patch: Partial<WithCompletion> & { buffer: PromptState["buffer"] }): void => {
    const current = ui.get();
    const { buffer, ...rest } = patch;
    ui.set({ ...current, ...rest, prompt: buffer === current.prompt.buffer ? current.prompt : { ...current.prompt, buffer } });
  };

  return (key) => {
    const current = ui.get();
    if (current.completion && current.completion.buffer === current.prompt.buffer) {
      const step = menuKey(current.completion, current.prompt.buffer, key);
      setPrompt({ buffer: step.buffer, completion: step.menu });
      if (step.handled) return true;
    }
    if (key.kind !== "tab" || !complete) return false;
    const buffer = current.prompt.buffer;
    pending.current?.abort();
    const request = new AbortController();
    pending.current = request;
    complete(buffer.text, buffer.cursor, request.signal).then(
      (completion) => {
        if (request.signal.aborted || !completion || ui.get().prompt.buffer !== buffer) return;
        const opened = openCompletion(buffer, completion);
        setPrompt({ buffer: opened.buffer, completion: opened.menu });
      },
      () => undefined,
    );
    return true;
  };
}
