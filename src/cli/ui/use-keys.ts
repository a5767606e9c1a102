import { useStdin } from "ink";
import { useEffect, useRef } from "react";
import { KeyReader, type Key, type Paste } from "./keys.js";

/**
 * One reader per terminal input, shared by the screens that follow each other on it: a paste
 * that arrives in many reads (a megabyte does) while the starting screen gives way to the chat
 * stays one paste, not its lines as Enter keys.
 */
const readers = new WeakMap<object, KeyReader>();

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
    const reader = readers.get(events) ?? new KeyReader();
    readers.set(events, reader);
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
