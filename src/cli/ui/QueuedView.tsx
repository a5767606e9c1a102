import { Text } from "ink";
import { cleanTerminalText } from "../render/terminal-text.js";

/** Messages typed ahead, waiting to be sent: each as its first line, dimmed. */
export function QueuedView({ queue }: { queue: readonly string[] }) {
  return (
    <>
      {queue.map((text, index) => (
        <Text key={index} dimColor>
          queued: {cleanTerminalText(text.split("\n")[0] ?? "")}
          {text.includes("\n") ? " …" : ""}
        </Text>
      ))}
    </>
  );
}
