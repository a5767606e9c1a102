import { Box, Text } from "ink";
import { cleanTerminalText } from "../render/terminal-text.js";
import { splitAtCursor } from "./input-buffer.js";
import type { InputBuffer } from "./input-buffer.js";

/** The input box: what is being typed, the cursor drawn as an inverse cell. Dimmed while a dialog has the keys. */
export function PromptView({ buffer, active, placeholder }: { buffer: InputBuffer; active: boolean; placeholder: string }) {
  const { before, under, after } = splitAtCursor(buffer);
  return (
    <Box borderStyle="round" borderColor={active ? "cyan" : "gray"} paddingX={1}>
      <Text color="cyan" bold>
        {"› "}
      </Text>
      <Box flexGrow={1}>
        {buffer.text === "" ? (
          <Text>
            <Text inverse={active}> </Text>
            <Text dimColor>{placeholder}</Text>
          </Text>
        ) : (
          <Text dimColor={!active}>
            {cleanTerminalText(before)}
            <Text inverse={active}>{cleanTerminalText(under)}</Text>
            {cleanTerminalText(after)}
          </Text>
        )}
      </Box>
    </Box>
  );
}
