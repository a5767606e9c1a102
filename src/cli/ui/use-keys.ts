import { useStdin } from "ink";
import { useEffect, useRef } from "react";
import { KeyReader, type Key, type Paste } from "./keys.js";

/**
 * The keys the user presses, decoded by our own reader rather than Ink's `useInput`, which
 * cannot tell a bracketed paste from typed text. Ink still owns stdin (raw mode, splitting
 * the input into sequences); this listens to the sequences it hands out.
 */
export function useKeys(handler: (key: Key | Paste) => void): void {
  const { setRawMode, internal_eventEmitter: events } = useStdin();
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => {
    setRawMode(true);
    const reader = new KeyReader();
    const onInput = (event: string): void => {
      for (const key of reader.read(event)) latest.current(key);
    };
    events.on("input", onInput);
    return () => {
      events.off("input", onInput);
      setRawMode(false);
    };
  }, [events, setRawMode]);
}
