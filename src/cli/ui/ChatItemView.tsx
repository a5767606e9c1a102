import { Box, Text } from "ink";
import type { Colors } from "../render/colors.js";
import { renderMarkdown } from "../render/markdown.js";
import type { ChatItem } from "./chat-items.js";

const RESULT_HEAD_LINES = 3;

/** The first lines of a result; when it was cut, where to read it whole. */
function head(text: string, number: number): string {
  const lines = text.split("\n");
  const shown = lines.length > RESULT_HEAD_LINES ? `${lines.slice(0, RESULT_HEAD_LINES).join("\n")}\n…` : text;
  return shown.endsWith("…") ? `${shown} (/result ${number} shows it whole)` : shown;
}

/** One finished piece of the conversation (Ink's `<Static>` draws each once). */
export function ChatItemView({ item, colors, width }: { item: ChatItem; colors: Colors; width: number }) {
  switch (item.kind) {
    case "banner":
      return (
        <Box flexDirection="column" marginBottom={1}>
          <Text bold>{item.title}</Text>
          <Text dimColor>{item.detail}</Text>
        </Box>
      );
    case "user":
      return (
        <Box marginTop={1}>
          <Text color="cyan" bold>
            {"› "}
          </Text>
          <Text>{item.text}</Text>
        </Box>
      );
    case "answer":
      return <Text>{renderMarkdown(item.text, colors, width)}</Text>;
    case "reasoning":
      return (
        <Text dimColor italic>
          {item.text.trim()}
        </Text>
      );
    case "tool": {
      const mark = item.denied ? <Text color="yellow">⊘</Text> : item.isError ? <Text color="red">✗</Text> : <Text color="green">✓</Text>;
      return (
        <Box flexDirection="column">
          <Text>
            {mark} <Text dimColor>[{item.number}]</Text> <Text bold>{item.name}</Text>
            <Text dimColor>
              ({item.args}) {Math.round(item.durationMs)} ms
            </Text>
          </Text>
          <Box paddingLeft={2} flexDirection="column">
            {item.summary !== "" && (
              <Text color={item.isError ? "red" : undefined} dimColor={!item.isError}>
                {head(item.summary, item.number)}
              </Text>
            )}
            {item.media.map((line, index) => (
              <Text key={index} color="magenta">
                {line}
                {line.startsWith("image") && <Text dimColor> · /image {item.number} saves it</Text>}
              </Text>
            ))}
          </Box>
        </Box>
      );
    }
    case "notice":
      return <Text color={item.tone === "error" ? "red" : item.tone === "warning" ? "yellow" : undefined} dimColor={item.tone === "info"}>{item.tone === "info" ? `(${item.text})` : `toolbridge: ${item.text}`}</Text>;
    case "output":
      return <Text>{item.text}</Text>;
    case "usage":
      return (
        <Text dimColor={!item.high} color={item.high ? "yellow" : undefined}>
          {item.text}
        </Text>
      );
    case "server":
      return item.ok ? (
        <Text dimColor>
          <Text color="green">●</Text> server {item.text}
        </Text>
      ) : (
        <Text color="red">● server {item.text}</Text>
      );
  }
}
