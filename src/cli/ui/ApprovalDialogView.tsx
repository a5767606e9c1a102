import { Box, Text } from "ink";
import { APPROVAL_CHOICES, type ApprovalDialogState } from "./approval-dialog.js";
import type { PendingApproval } from "./chat-controller.js";
import { cleanTerminalText } from "../render/terminal-text.js";

/** Before a tool runs that the policy does not allow: which server, which tool, with what. */
export function ApprovalDialogView({ pending, state }: { pending: PendingApproval; state: ApprovalDialogState }) {
  const { tool } = pending.request;
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
      {pending.argsSummary !== "" && <Text dimColor>{pending.argsSummary}</Text>}
      {tool.annotations?.destructiveHint === true && <Text color="red">The server says this tool may change or delete data.</Text>}
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
