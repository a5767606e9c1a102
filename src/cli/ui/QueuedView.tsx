import { Text } from "ink";
import { cleanTerminalText } from "../render/terminal-text.js";

/** Messages typed ahead, waiting to be sent: each as its first line, dimmed; marked paused after a cancelled turn. */
export function QueuedView({ queue, paused = false }: { queue: readonly string[]; paused?: boolean }) {
  return (
    <>
      {queue.map((text, index) => (
        <Text key={index} dimColor>
          {paused ? "queued (paused)" : "queued"}: {cleanTerminalText(text.split("\n")[0] ?? "")}
          {text.includes("\n") ? " …" : ""}
        </Text>
      ))}
    </>
  );
}
