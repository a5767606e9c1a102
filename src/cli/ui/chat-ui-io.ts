export type Env = Readonly<Record<string, string | undefined>>;

/** The terminal streams and environment the chat runs on: run-chat-ui.tsx starts with them and hands them to chat-screen.tsx. */
export interface ChatUiIo {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: Env;
}
