import { Box, Static, Text, useApp, useStdout } from "ink";
import { useEffect, useSyncExternalStore } from "react";
import type { Colors } from "../render/colors.js";
import { cleanTerminalText } from "../render/terminal-text.js";
import { applyApprovalKey, argumentsHeight, INITIAL_APPROVAL_DIALOG, type ApprovalDialogState, type ArgumentsView } from "./approval-dialog.js";
import { ApprovalDialogView, DIALOG_FRAME_COLUMNS } from "./ApprovalDialogView.js";
import { argumentLines, type ArgumentLines } from "./argument-lines.js";
import type { ChatController, PendingApproval, PendingChoice } from "./chat-controller.js";
import type { ChatItem } from "./chat-items.js";
import { ChatItemView } from "./ChatItemView.js";
import type { CompletionMenu } from "./completion-menu.js";
import { CompletionListView } from "./CompletionListView.js";
import type { InputHistory } from "./history.js";
import type { Key, Paste } from "./keys.js";
import { LiveTurnView } from "./LiveTurnView.js";
import { bufferOf, EMPTY_BUFFER, type InputBuffer } from "./input-buffer.js";
import { applySearchKey, NEW_SEARCH, type HistorySearch } from "./history-search.js";
import { applyKey, EMPTY_PROMPT, type PromptState } from "./prompt-editor.js";
import { PromptView } from "./PromptView.js";
import { QueuedView } from "./QueuedView.js";
import { ServerQuestionView } from "./ServerQuestionView.js";
import { useCompletion, type Completer } from "./use-completion.js";
import { useKeys } from "./use-keys.js";
import { useRedrawOnResize } from "./use-redraw-on-resize.js";
import { useUiStore } from "./ui-store.js";

/** What the screen holds besides the conversation: the prompt, the dialog's state, the quit hint. */
interface UiState {
  prompt: PromptState;
  dialog: { for: PendingApproval | undefined; state: ApprovalDialogState };
  exitArmed: boolean;
  /** The highlighted line of a choice list. */
  choiceIndex: number;
  /** Tab completion's list, while it is open. */
  completion: CompletionMenu | undefined;
  /** Ctrl-L cleared the screen: items up to this id are no longer drawn (the conversation keeps them). */
  clearedThrough: number;
  /** Ctrl-R's history search while it is open, with what was being typed before it (given back by Esc). */
  search: { state: HistorySearch; before: PromptState } | undefined;
}

export interface ChatAppProps {
  controller: ChatController;
  history: InputHistory;
  colors: Colors;
  /** What was being typed while the chat started. */
  initialPrompt?: PromptState;
  /** Tab completion; without it Tab does nothing. */
  complete?: Completer;
}

/**
 * The chat screen: finished turns in `<Static>` (written once, scrolled by the terminal),
 * then the turn in progress, the queued messages, a dialog when the agent asks, and the
 * input box, which stays usable while the model answers.
 */
export function ChatApp({ controller, history, colors, initialPrompt = EMPTY_PROMPT, complete }: ChatAppProps) {
  const state = useSyncExternalStore(controller.subscribe, controller.getState);
  const asking = useSyncExternalStore(controller.questions.subscribe, controller.questions.getState);
  const { exit } = useApp();
  const { columns: width, generation, clearScreen } = useRedrawOnResize();
  const { stdout } = useStdout();
  // A store, not component state: several keys can arrive in one input event, each must see the one before.
  const [ui, view] = useUiStore<UiState>(() => ({ prompt: initialPrompt, dialog: { for: undefined, state: INITIAL_APPROVAL_DIALOG }, exitArmed: false, choiceIndex: 0, completion: undefined, clearedThrough: 0, search: undefined }));
  const change = (patch: Partial<UiState>): void => ui.set({ ...ui.get(), ...patch });
  const completionKey = useCompletion(ui, complete);

  useEffect(() => {
    if (state.exiting) exit();
  }, [state.exiting, exit]);

  useKeys((key: Key | Paste) => {
    const current = controller.getState();
    if (current.exiting) return;
    if (!current.approval && controller.questions.key(key)) return;
    const search = ui.get().search;
    if (search && !current.approval && !current.choice) return searchKey(search, key);
    if (key.kind === "ctrl" && key.letter === "c") return interrupt();
    if (key.kind === "ctrl" && key.letter === "l") {
      change({ clearedThrough: current.items.at(-1)?.id ?? 0 });
      return clearScreen();
    }
    if (current.approval) return approvalKey(current.approval, key);
    if (current.choice) return choiceKey(current.choice, key);
    if (completionKey(key)) return;
    if (key.kind === "ctrl" && key.letter === "r") return change({ search: { state: NEW_SEARCH, before: ui.get().prompt }, completion: undefined, exitArmed: false });
    const empty = ui.get().prompt.buffer.text === "";
    if (key.kind === "escape") {
      if (!controller.cancel()) controller.dropQueue();
      return;
    }
    if (key.kind === "ctrl" && key.letter === "d" && empty) return controller.exit();
    // A paused queue: Enter at an empty prompt sends it; ↑ at an empty prompt takes the last queued message back to edit.
    if (key.kind === "enter" && !key.shift && empty && controller.resumeQueue()) return;
    if (key.kind === "up" && empty && current.queue.length > 0) {
      const last = controller.unqueueLast();
      if (last !== undefined) change({ prompt: { ...EMPTY_PROMPT, buffer: bufferOf(last.shown), pastes: last.pastes } });
      return;
    }
    const step = applyKey(ui.get().prompt, key, history.all);
    change({ prompt: step.state, exitArmed: false });
    if (step.submit !== undefined) {
      history.add(step.submit.text);
      controller.submit(step.submit);
    }
  });

  function searchKey(search: NonNullable<UiState["search"]>, key: Key | Paste): void {
    const step = applySearchKey(search.state, key, history.all);
    if ("search" in step) change({ search: { ...search, state: step.search } });
    else if ("accept" in step) change({ search: undefined, prompt: { ...EMPTY_PROMPT, buffer: bufferOf(step.accept) } });
    else change({ search: undefined, prompt: search.before });
  }

  // Ctrl-C: cancel the turn; else clear the typing; else quit when pressed twice.
  function interrupt(): void {
    if (controller.cancel()) return;
    if (ui.get().prompt.buffer.text !== "") change({ prompt: EMPTY_PROMPT });
    else if (ui.get().exitArmed) controller.exit();
    else change({ exitArmed: true });
  }

  function approvalKey(pending: PendingApproval, key: Key | Paste): void {
    const current = ui.get().dialog;
    const step = applyApprovalKey(current.for === pending ? current.state : INITIAL_APPROVAL_DIALOG, key, argumentsOf(pending).view);
    change({ dialog: { for: pending, state: step.state } });
    if (step.answer) pending.answer(step.answer);
  }

  function choiceKey(pending: PendingChoice, key: Key | Paste): void {
    const selected = ui.get().choiceIndex;
    if (key.kind === "up") change({ choiceIndex: Math.max(0, selected - 1) });
    else if (key.kind === "down") change({ choiceIndex: Math.min(pending.options.length - 1, selected + 1) });
    else if (key.kind === "enter") {
      change({ choiceIndex: 0 });
      pending.answer(selected);
    } else if (key.kind === "escape") pending.answer(undefined);
  }

  // The approval's arguments laid out for the dialog (cached per call and width), and how many lines fit.
  function argumentsOf(pending: PendingApproval): { shown: ArgumentLines; view: ArgumentsView } {
    const shown = argumentLines(pending.request.arguments, width - DIALOG_FRAME_COLUMNS);
    return { shown, view: { lines: shown.lines.length, height: argumentsHeight(stdout.rows || 24), whole: shown.whole } };
  }

  const dialogState = state.approval && view.dialog.for === state.approval ? view.dialog.state : INITIAL_APPROVAL_DIALOG;
  return (
    <Box flexDirection="column">
      <Static key={generation} items={(view.clearedThrough === 0 ? state.items : state.items.filter((item) => item.id > view.clearedThrough)) as ChatItem[]}>{(item) => <ChatItemView key={item.id} item={item} colors={colors} width={width} />}</Static>
      {state.starting.length > 0 && !state.live && <Text dimColor>starting servers: {state.starting.map(cleanTerminalText).join(", ")}…</Text>}
      {state.live && <LiveTurnView live={state.live} colors={colors} width={width} clock={controller.dialogs} paused={state.approval !== undefined || asking.current !== undefined} />}
      <QueuedView queue={state.queue} paused={state.queuePaused} />
      {state.choice && (
        <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
          <Text bold>{state.choice.title}</Text>
          {state.choice.options.map((option, index) => (
            <Text key={index} color={index === view.choiceIndex ? "cyan" : undefined}>
              {index === view.choiceIndex ? "❯ " : "  "}
              {option}
            </Text>
          ))}
          <Text dimColor>{state.choice.hint}</Text>
        </Box>
      )}
      {state.approval && <ApprovalDialogView pending={state.approval} state={dialogState} {...argumentsOf(state.approval)} />}
      {!state.approval && asking.current && <ServerQuestionView question={asking.current} waiting={asking.waiting} declined={asking.declined} />}
      {!state.exiting && (
        <>
          <PromptView buffer={view.search ? searchBuffer(view.search.state, history.all) : view.prompt.buffer} active={!state.approval && !state.choice && !asking.current} placeholder={view.search ? "type to search the messages sent" : state.live ? "type ahead; sent when the answer ends" : "message, or /help"} />
          {view.completion?.buffer === view.prompt.buffer && <CompletionListView menu={view.completion} width={width} />}
          <Text dimColor>{view.search ? searchHint(view.search.state) : view.exitArmed ? "Press Ctrl-C again to quit" : state.live ? "Esc cancels the answer · Enter queues a message" : state.queuePaused ? "Enter sends the queued messages · ↑ takes the last back to edit · Esc drops them" : "Enter sends · Shift+Enter, Ctrl+J or \\ then Enter for a new line · Ctrl-L clears · Ctrl-D quits"}</Text>
        </>
      )}
    </Box>
  );
}

/** What the input box shows while searching: the message found. */
function searchBuffer(search: HistorySearch, history: readonly string[]): InputBuffer {
  return search.match === undefined ? EMPTY_BUFFER : bufferOf(history[search.match] ?? "");
}

function searchHint(search: HistorySearch): string {
  const query = cleanTerminalText(search.query);
  const found = search.query === "" ? "history search: type to find a message sent" : search.match === undefined ? `history search: no message holds "${query}"` : `history search: "${query}"`;
  return `${found} · Ctrl-R older · Enter takes it · Esc cancels`;
}
