import { Box, Text } from "ink";
import { useEffect, useState } from "react";
import type { Colors } from "../render/colors.js";
import { renderMarkdown } from "../render/markdown.js";
import { cleanTerminalText } from "../render/terminal-text.js";
import type { LiveTurn } from "./chat-controller.js";
import type { DialogClock } from "./dialog-clock.js";

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/** An answer that has begun and then sent nothing for this long is shown stalled, with the time and how to stop it. */
export const STALL_SHOWN_MS = 5000;
/** Only the end of long thinking is shown live; all of it lands in the transcript above when it ends. */
const REASONING_TAIL_LINES = 4;

function useTicker(active: boolean, intervalMs: number): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setTick((n) => n + 1), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
  return tick;
}

/**
 * The turn in progress: a spinner with the seconds waited until the model answers, the
 * answer's last block, and each tool running with its seconds (a dialog's time left out) and
 * the last progress its server reported; an answer that stopped coming, with the seconds since
 * its last piece (`paused` while a dialog waits for the person instead).
 */
export function LiveTurnView({ live, colors, width, clock, paused = false }: { live: LiveTurn; colors: Colors; width: number; clock: DialogClock; paused?: boolean }) {
  const waiting = !live.answered || live.running.length > 0;
  // While an answer streams, a slow tick notices when it stops; the spinner needs a fast one.
  const tick = useTicker(waiting || !paused, waiting ? 100 : 1000);
  const seconds = Math.floor((Date.now() - live.startedAt) / 1000);
  const silentMs = Date.now() - live.lastHeardAt;
  const stalled = !paused && live.answered && live.running.length === 0 && silentMs >= STALL_SHOWN_MS;
  const reasoning = live.reasoning.trim().split("\n").slice(-REASONING_TAIL_LINES).join("\n");
  return (
    <Box flexDirection="column">
      {reasoning !== "" && (
        <Text dimColor italic>
          {reasoning}
        </Text>
      )}
      {live.text !== "" && <Text>{renderMarkdown(live.text, colors, width)}</Text>}
      {live.running.map((call) => (
        <Text key={call.id}>
          <Text color="cyan">{SPINNER[tick % SPINNER.length]}</Text> <Text bold>{call.name}</Text>
          <Text dimColor>
            ({call.args}) · {Math.floor(clock.activeSince(call.started) / 1000)} s
          </Text>
          {call.progress !== undefined && <Text color="cyan"> · {call.progress}</Text>}
        </Text>
      ))}
      {stalled && (
        <Text color="yellow">
          {SPINNER[tick % SPINNER.length]} the model server has sent nothing for {Math.floor(silentMs / 1000)} s · Esc or Ctrl-C stops the answer
        </Text>
      )}
      {!live.answered && live.running.length === 0 && (
        <Text>
          <Text color="cyan">{SPINNER[tick % SPINNER.length]}</Text>
          <Text dimColor>
            {" "}
            {live.waitingFor.length > 0 ? `waiting for ${live.waitingFor.map(cleanTerminalText).join(", ")} to start` : "waiting for the model"}… {seconds} s · Esc to cancel
          </Text>
        </Text>
      )}
    </Box>
  );
}
