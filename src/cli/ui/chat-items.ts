/** What the screen shows once and never redraws (Ink's `<Static>`). All text in it is cleaned. */
export type ChatItemBody =
  | { kind: "banner"; title: string; detail: string }
  | { kind: "user"; text: string }
  /** A finished piece of the answer (markdown source). */
  | { kind: "answer"; text: string }
  | { kind: "reasoning"; text: string }
  /** `number` is the call's number for /result and /image; `media` describes the images and sounds it returned. */
  | { kind: "tool"; number: number; name: string; args: string; summary: string; media: string[]; isError: boolean; durationMs: number; denied: boolean }
  | { kind: "notice"; tone: "info" | "warning" | "error"; text: string }
  /** A slash command's output, styled by our own renderers. */
  | { kind: "output"; text: string }
  /** `high`: the conversation fills most of the model's context. */
  | { kind: "usage"; text: string; high?: boolean }
  /** A server connected (ok) or failed to start. */
  | { kind: "server"; ok: boolean; text: string };

export type ChatItem = ChatItemBody & { id: number };
