import { useStdout } from "ink";
import { useCallback, useEffect, useState } from "react";

/** Clears the screen and the scrollback, and puts the cursor home. */
const CLEAR_TERMINAL = "\x1b[2J\x1b[3J\x1b[H";
/** A drag of the window's edge sends many resizes; the screen is redrawn once it has settled. */
export const RESIZE_SETTLE_MS = 200;

/**
 * The terminal's width, followed at once (what is drawn next fits it), and a generation
 * number for Ink's `<Static>`, which writes each item once and never again: when the width has
 * changed and settled, the terminal is cleared and the generation goes up, so a
 * `<Static key={generation}>` is mounted anew and draws every item again at the new width.
 */
export function useRedrawOnResize(): { columns: number; generation: number; clearScreen: () => void } {
  const { stdout, write } = useStdout();
  const [view, setView] = useState(() => ({ columns: stdout.columns || 80, generation: 0 }));
  // Ctrl-L: the terminal cleared through Ink's `write`, which draws the live region again after it, and
  // `<Static>` mounted anew (the caller leaves out of it what was cleared).
  const clearScreen = useCallback(() => {
    write(CLEAR_TERMINAL);
    setView((current) => ({ ...current, generation: current.generation + 1 }));
  }, [write]);
  useEffect(() => {
    let drawn = stdout.columns || 80;
    let timer: NodeJS.Timeout | undefined;
    const settle = (): void => {
      timer = undefined;
      const columns = stdout.columns || 80;
      if (columns === drawn) return;
      drawn = columns;
      stdout.write(CLEAR_TERMINAL);
      setView((current) => ({ columns, generation: current.generation + 1 }));
    };
    const onResize = (): void => {
      const columns = stdout.columns || 80;
      setView((current) => (current.columns === columns ? current : { ...current, columns }));
      clearTimeout(timer);
      timer = setTimeout(settle, RESIZE_SETTLE_MS);
    };
    stdout.on("resize", onResize);
    return () => {
      clearTimeout(timer);
      stdout.off("resize", onResize);
    };
  }, [stdout]);
  return { ...view, clearScreen };
}
