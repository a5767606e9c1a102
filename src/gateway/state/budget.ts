import { mebibytes } from "../../mcp/transport/json-lines.js";
import { NotStoredError, type StoreBudget } from "./state.js";

/** What the embedded store knows of a record without reading it. */
export interface IndexEntry {
  owner: string;
  /** The record's JSON, in bytes. */
  bytes: number;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/**
 * The embedded store's index (id -> owner, size, expiry) and its budget: what is stored in all
 * and per key never passes it. Expired records are counted until a sweep finds them, which
 * happens before a record is refused.
 */
export class BudgetIndex {
  private readonly entries = new Map<string, IndexEntry>();
  private readonly byOwner = new Map<string, number>();
  private total = 0;

  constructor(private readonly budget: StoreBudget) {}

  get(id: string): IndexEntry | undefined {
    return this.entries.get(id);
  }

  /** Counted as it is, within the budget or not (a store read at start; `fit` then trims it). */
  add(id: string, entry: IndexEntry): void {
    this.remove(id);
    this.entries.set(id, entry);
    this.total += entry.bytes;
    this.byOwner.set(entry.owner, (this.byOwner.get(entry.owner) ?? 0) + entry.bytes);
  }

  remove(id: string): IndexEntry | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    this.total -= entry.bytes;
    const left = (this.byOwner.get(entry.owner) ?? 0) - entry.bytes;
    if (left > 0) this.byOwner.set(entry.owner, left);
    else this.byOwner.delete(entry.owner);
    return entry;
  }

  /**
   * Counts `entry` in place of any record `id` had, or throws NotStoredError saying which limit
   * it would pass. Returns the expired records it removed to make room, whose data must go too.
   */
  admit(id: string, entry: IndexEntry, now: number): string[] {
    const { maxBytes, maxBytesPerKey } = this.budget;
    if (entry.bytes > maxBytesPerKey) throw largerThanShare(entry.bytes, maxBytesPerKey);
    const swept = this.fits(id, entry) === true ? [] : this.sweep(now);
    const misfit = this.fits(id, entry);
    if (misfit !== true) {
      throw misfit === "key" ? shareFull(maxBytesPerKey) : new NotStoredError(`the store is full (${mebibytes(maxBytes)}, gateway.storeMaxBytes) until stored responses expire or are deleted`);
    }
    this.add(id, entry);
    return swept;
  }

  /**
   * Removes what has expired, then records past the budget (a store that grew under an older
   * budget), those expiring soonest first. Returns both, for their data to go too.
   */
  fit(now: number): { expired: string[]; dropped: { id: string; entry: IndexEntry }[] } {
    const expired = this.sweep(now);
    const dropped: { id: string; entry: IndexEntry }[] = [];
    const byExpiry = [...this.entries].sort(([, a], [, b]) => a.expiresAt - b.expiresAt);
    for (const [id, entry] of byExpiry) {
      if (this.total <= this.budget.maxBytes && (this.byOwner.get(entry.owner) ?? 0) <= this.budget.maxBytesPerKey) continue;
      this.remove(id);
      dropped.push({ id, entry });
    }
    return { expired, dropped };
  }

  private sweep(now: number): string[] {
    const expired = [...this.entries].filter(([, entry]) => entry.expiresAt <= now).map(([id]) => id);
    for (const id of expired) this.remove(id);
    return expired;
  }

  /** True, or which limit `entry` would pass in place of what `id` holds now. */
  private fits(id: string, entry: IndexEntry): true | "key" | "store" {
    const old = this.entries.get(id);
    const replaced = (owner: string) => (old && old.owner === owner ? old.bytes : 0);
    if ((this.byOwner.get(entry.owner) ?? 0) - replaced(entry.owner) + entry.bytes > this.budget.maxBytesPerKey) return "key";
    if (this.total - (old?.bytes ?? 0) + entry.bytes > this.budget.maxBytes) return "store";
    return true;
  }
}

/** One record larger than a key's whole share: never stored, on either store. */
export function largerThanShare(bytes: number, maxBytesPerKey: number): NotStoredError {
  return new NotStoredError(`it is ${mebibytes(bytes)}, more than a key's share of the store (${mebibytes(maxBytesPerKey)}, gateway.storeMaxBytesPerKey)`);
}

/** A key whose stored responses fill its share, on either store. */
export function shareFull(maxBytesPerKey: number): NotStoredError {
  return new NotStoredError(`this key's share of the store (${mebibytes(maxBytesPerKey)}, gateway.storeMaxBytesPerKey) is full until its stored responses expire or are deleted`);
}
