import picocolors from "picocolors";

export type Colors = ReturnType<typeof picocolors.createColors>;

/**
 * Colours for one output stream: on for a terminal unless NO_COLOR is set or TERM is
 * dumb; FORCE_COLOR turns them on anywhere. Decided per stream, so `toolbridge tools | less`
 * gets plain text while errors on the terminal stay red.
 */
export function colorsFor(stream: { isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): Colors {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0";
  const enabled = !env.NO_COLOR && (forced || (stream.isTTY === true && env.TERM !== "dumb"));
  return picocolors.createColors(enabled);
}
