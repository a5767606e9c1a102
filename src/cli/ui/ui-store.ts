import { useMemo, useSyncExternalStore } from "react";

/**
 * A value the screen draws and the key handler changes. Read through
 * useSyncExternalStore, so a key's effect is drawn in the next frame even while the model's
 * answer streams in (a plain setState, from outside React, can wait behind those updates
 * until the answer ends).
 */
export class UiStore<T> {
  private readonly listeners = new Set<() => void>();

  constructor(private value: T) {}

  get = (): T => this.value;

  set(value: T): void {
    this.value = value;
    for (const listener of this.listeners) listener();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}

/** A store made once per component, and its current value. */
export function useUiStore<T>(initial: () => T): [UiStore<T>, T] {
  const store = useMemo(() => new UiStore(initial()), []);
  const value = useSyncExternalStore(store.subscribe, store.get);
  return [store, value];
}
