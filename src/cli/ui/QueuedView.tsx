import { Text } from "ink";
import { cleanTerminalText } from "../render/terminal-text.js";
import type { Submission } from "./prompt-editor.js";

/** Messages typed ahead, waiting to be sent: each as its first line, dimmed; marked paused after a cancelled turn. */
export function QueuedView({ queue, paused = false }: { queue: readonly Submission[]; paused?: boolean }) {
  return (
    <>
      {queue.map(({ shown: text }, index) => (
        <Text key={index} dimColor>
          {paused ? "queued (paused)" : "queued"}: {cleanTerminalText(text.split("\n")[0] ?? "")}
          {text.includes("\n") ? " …" : ""}
        </Text>
      ))}
    </>
  );
}
