import { Text } from "ink";
import { useSyncExternalStore } from "react";
import type { InputHistory } from "./history.js";
import type { Key, Paste } from "./keys.js";
import { applyKey, EMPTY_PROMPT, type PromptState, type Submission } from "./prompt-editor.js";
import { PromptView } from "./PromptView.js";
import { QueuedView } from "./QueuedView.js";
import { UiStore } from "./ui-store.js";
import { useKeys } from "./use-keys.js";

/** What was typed while the chat started: the line being edited, the messages sent (queued), and whether the user quit. */
export interface EarlyInput {
  prompt: PromptState;
  queued: readonly Submission[];
  quit: boolean;
}

export const NO_EARLY_INPUT: EarlyInput = { prompt: EMPTY_PROMPT, queued: [], quit: false };

/**
 * The screen while the model server is asked which model it serves and the agent is built:
 * the input box at once, so typing can start; a message sent meanwhile is queued and sent
 * when the chat is ready. Ctrl-C or Ctrl-D quits.
 */
export function StartingApp({ input, history }: { input: UiStore<EarlyInput>; history: InputHistory }) {
  const view = useSyncExternalStore(input.subscribe, input.get);
  useKeys((key: Key | Paste) => {
    const current = input.get();
    if (current.quit) return;
    if (key.kind === "ctrl" && (key.letter === "c" || (key.letter === "d" && current.prompt.buffer.text === ""))) {
      input.set({ ...current, quit: true });
      return;
    }
    const step = applyKey(current.prompt, key, history.all);
    const queued = step.submit === undefined ? current.queued : [...current.queued, step.submit];
    if (step.submit !== undefined) history.add(step.submit.text);
    input.set({ ...current, prompt: step.state, queued });
  });
  if (view.quit) return <Text dimColor>stopping…</Text>;
  return (
    <>
      <Text dimColor>connecting to the model server…</Text>
      <QueuedView queue={view.queued} />
      <PromptView buffer={view.prompt.buffer} active placeholder="message, or /help" />
      <Text dimColor>Enter queues a message · Ctrl-C quits</Text>
    </>
  );
}
