import { Box, Text } from "ink";
import { DESTRUCTIVE_NOTE, UNREAD_ARGUMENTS_NOTE } from "../../agent/approval-facts.js";
import { APPROVAL_CHOICES, argumentsRead, type ApprovalDialogState, type ArgumentsView } from "./approval-dialog.js";
import type { ArgumentLines } from "./argument-lines.js";
import type { PendingApproval } from "./chat-controller.js";
import { cleanTerminalText } from "../render/terminal-text.js";

/** The columns the dialog's border and padding take from the terminal's width. */
export const DIALOG_FRAME_COLUMNS = 4;

/**
 * Before a tool runs that the policy does not allow: which server, which tool, with what.
 * The arguments are shown whole (`shown`, laid out for the dialog's width), a screenful at a
 * time when they are taller, with where they stand and how to scroll.
 */
export function ApprovalDialogView({ pending, state, shown, view }: { pending: PendingApproval; state: ApprovalDialogState; shown: ArgumentLines; view: ArgumentsView }) {
  const { tool } = pending.request;
  const scrolls = shown.lines.length > view.height;
  const visible = scrolls ? shown.lines.slice(state.scroll, state.scroll + view.height) : shown.lines;
  const below = shown.lines.length - state.scroll - visible.length;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text>
        <Text bold color="yellow">
          Run {cleanTerminalText(tool.originalName)}
        </Text>
        <Text> from server </Text>
        <Text bold>{cleanTerminalText(tool.server)}</Text>
        <Text>?</Text>
      </Text>
      {visible.map((line, index) => {
        const tone = shown.tones[(scrolls ? state.scroll : 0) + index];
        return (
          <Text key={state.scroll + index} dimColor={tone === undefined} color={tone === "removed" ? "red" : tone === "added" ? "green" : undefined}>
            {line}
          </Text>
        );
      })}
      {scrolls && (
        <Text color="cyan">
          {state.scroll > 0 ? `↑ ${state.scroll} above · ` : ""}
          {below > 0 ? `↓ ${below} more line${below === 1 ? "" : "s"} · ` : "end of the arguments · "}
          PgDn/Space and PgUp scroll
        </Text>
      )}
      {tool.annotations?.destructiveHint === true && <Text color="red">{DESTRUCTIVE_NOTE}</Text>}
      {pending.request.why !== undefined && <Text dimColor>Asked because {cleanTerminalText(pending.request.why)}.</Text>}
      {state.unread && !argumentsRead(state, view) && (
        <Text color="yellow">{shown.whole ? `${UNREAD_ARGUMENTS_NOTE} (PgDn); n denies.` : "These arguments are too long to review here; they can only be denied."}</Text>
      )}
      <Box flexDirection="column" marginTop={1}>
        {APPROVAL_CHOICES.map((choice, index) => (
          <Text key={choice.key} color={index === state.selected ? "cyan" : undefined}>
            {index === state.selected ? "❯ " : "  "}
            {choice.key}) {choice.label}
          </Text>
        ))}
      </Box>
      {state.reason !== undefined && (
        <Text>
          Reason (Enter to deny): <Text>{cleanTerminalText(state.reason.text)}</Text>
          <Text inverse> </Text>
        </Text>
      )}
    </Box>
  );
}
