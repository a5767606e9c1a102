import { Box, Text } from "ink";
import { oneLine } from "../render/one-line.js";
import type { CompletionMenu } from "./completion-menu.js";

/** How many candidates are shown at once; the window follows the highlight. */
export const VISIBLE_CANDIDATES = 8;

/** The candidates under the input, the highlighted one marked. Candidates come from servers, so they are cleaned. */
export function CompletionListView({ menu, width }: { menu: CompletionMenu; width: number }) {
  const { candidates } = menu.completion;
  const start = Math.min(Math.max(0, menu.index - VISIBLE_CANDIDATES + 1), Math.max(0, candidates.length - VISIBLE_CANDIDATES));
  const shown = candidates.slice(start, start + VISIBLE_CANDIDATES);
  return (
    <Box flexDirection="column" paddingX={2}>
      {shown.map((candidate, offset) => {
        const selected = start + offset === menu.index;
        const label = oneLine(candidate.label);
        const detail = candidate.detail ? oneLine(candidate.detail) : "";
        const room = Math.max(0, width - label.length - 8);
        return (
          <Text key={start + offset} wrap="truncate-end">
            <Text color={selected ? "cyan" : undefined} bold={selected}>
              {selected ? "❯ " : "  "}
              {label}
            </Text>
            {detail !== "" && room > 0 && <Text dimColor>{`  ${detail.length > room ? `${detail.slice(0, Math.max(0, room - 1))}…` : detail}`}</Text>}
          </Text>
        );
      })}
      <Text dimColor>
        {candidates.length > VISIBLE_CANDIDATES ? `${menu.index + 1}/${candidates.length} · ` : ""}Tab/↑/↓ choose · Enter puts it in · Esc closes
      </Text>
    </Box>
  );
}
