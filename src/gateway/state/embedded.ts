import { lstat, rename, unlink } from "node:fs/promises";
import { privateDirectory } from "../../config/private-files.js";
import { mebibytes } from "../../mcp/transport/json-lines.js";
import { ConcurrencyLimit } from "../access.js";
import { silentLogger, type Logger } from "../log.js";
import { BudgetIndex, type IndexEntry } from "./budget.js";
import { BadRecordError, RecordDirectory } from "./files.js";
import { importNedbFile } from "./nedb-import.js";
import { DEFAULT_STORE_BUDGET, NotStoredError, StateUnavailableError, type CallerLimits, type GatewayState, type IssuedApproval, type IssuedApprovals, type LimitSettings, type ResponseStore, type StoreBudget, type StoredResponse } from "./state.js";

/** Approval requests one process remembers at most; past it the oldest are forgotten (their approvals refused). */
export const MAX_ISSUED_APPROVALS = 100_000;

/** Where the records of one stored response are kept: files in a private directory, or this process's memory. */
interface RecordShelf {
  write(id: string, entry: IndexEntry, body: string): Promise<void>;
  read(id: string, maxBodyBytes: number): Promise<StoredResponse | undefined>;
  remove(id: string): Promise<void>;
}

/**
 * The state of one gateway process: stored responses in a private directory (0700, one 0600
 * file per response, see files.ts) or in memory without one, within a budget in all and
 * per key; limits counted here. Only the index (id -> owner, size, expiry) stays in memory.
 */
export async function openEmbeddedState(options: { directory?: string; ttlSeconds: number; limits: LimitSettings; budget?: StoreBudget; log?: Logger }): Promise<GatewayState> {
  const { directory } = options;
  const budget = options.budget ?? DEFAULT_STORE_BUDGET;
  const log = options.log ?? silentLogger;
  const warn = (line: string) => log.log("warn", line, { store: directory ?? "memory" });
  const index = new BudgetIndex(budget);
  let shelf: RecordShelf;
  if (directory === undefined) {
    // The JSON text, not the object: what is read back is a copy the caller may change.
    const held = new Map<string, string>();
    shelf = {
      write: async (id, _entry, body) => void held.set(id, body),
      read: async (id) => {
        const body = held.get(id);
        return body === undefined ? undefined : (JSON.parse(body) as StoredResponse);
      },
      remove: async (id) => void held.delete(id),
    };
  } else {
    shelf = await openDirectory(directory, index, budget, warn);
  }

  const drop = (ids: string[]) => Promise.all(ids.map((id) => shelf.remove(id).catch(() => undefined)));
  const store = async (record: StoredResponse, expiresAt: number) => {
    if (!RecordDirectory.canHold(record.id)) throw new NotStoredError(`its id is not one the gateway makes`);
    const body = JSON.stringify(record);
    const entry: IndexEntry = { owner: record.owner, bytes: Buffer.byteLength(body), expiresAt };
    const before = index.get(record.id);
    await drop(index.admit(record.id, entry, Date.now()));
    try {
      await shelf.write(record.id, entry, body);
    } catch (error) {
      index.remove(record.id);
      if (before) index.add(record.id, before);
      throw new StateUnavailableError(`${directory}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const responses: ResponseStore = {
    async get(id) {
      const entry = index.get(id);
      if (!entry) return undefined;
      if (entry.expiresAt <= Date.now()) {
        index.remove(id);
        await drop([id]);
        return undefined;
      }
      try {
        const record = await shelf.read(id, budget.maxBytesPerKey);
        // Its file was removed by hand: the index forgets it too.
        if (!record) index.remove(id);
        return record;
      } catch (error) {
        if (!(error instanceof BadRecordError)) throw new StateUnavailableError(`${directory}: ${error instanceof Error ? error.message : String(error)}`);
        warn(`${error.message}: removed; the response is no longer stored`);
        index.remove(id);
        await drop([id]);
        return undefined;
      }
    },
    put: (record) => store(record, Date.now() + options.ttlSeconds * 1000),
    async delete(id) {
      if (!index.remove(id)) return false;
      await shelf.remove(id);
      return true;
    },
  };
  if (directory !== undefined) await importOlderStore(directory, budget, warn, store, responses);
  return {
    description: directory === undefined ? "memory" : `directory ${directory}`,
    responses,
    limits: new LocalLimits(options.limits),
    issuedApprovals: new LocalIssuedApprovals(options.ttlSeconds),
    async close() {},
  };
}

/** Makes the directory private, indexes what it holds, and trims it to the budget, saying what went. */
async function openDirectory(directory: string, index: BudgetIndex, budget: StoreBudget, warn: (line: string) => void): Promise<RecordDirectory> {
  // Before 0.2 the store was one nedb file at this path: it is set aside, to be read once below.
  const older = await lstat(directory).catch(() => undefined);
  if (older?.isFile()) await rename(directory, `${directory}${OLDER_SUFFIX}`);
  privateDirectory(directory);
  const records = new RecordDirectory(directory);
  for (const [id, entry] of await records.scan(warn)) index.add(id, entry);
  const { expired, dropped } = index.fit(Date.now());
  for (const id of [...expired, ...dropped.map((drop) => drop.id)]) await records.remove(id);
  if (dropped.length > 0) {
    const bytes = dropped.reduce((sum, drop) => sum + drop.entry.bytes, 0);
    warn(
      `${directory}: ${dropped.length} stored responses (${mebibytes(bytes)}, those expiring soonest) were removed to fit the budget ` +
        `(${mebibytes(budget.maxBytes)} in all, gateway.storeMaxBytes; ${mebibytes(budget.maxBytesPerKey)} per key, gateway.storeMaxBytesPerKey)`,
    );
  }
  return records;
}

const OLDER_SUFFIX = ".nedb";

/** Copies the responses of an older version's store file into the directory once, then removes the file. */
async function importOlderStore(directory: string, budget: StoreBudget, warn: (line: string) => void, store: (record: StoredResponse, expiresAt: number) => Promise<void>, responses: ResponseStore): Promise<void> {
  const file = `${directory}${OLDER_SUFFIX}`;
  if (!(await lstat(file).catch(() => undefined))) return;
  let refused = 0;
  const keep = async (record: StoredResponse, expiresAt: number) => {
    try {
      await store(record, expiresAt);
      return true;
    } catch (error) {
      if (!(error instanceof NotStoredError)) throw error;
      refused += 1;
      return false;
    }
  };
  // A record's line holds its JSON once more as a string: escaped, it may be twice as long.
  const count = await importNedbFile(file, 2 * budget.maxBytesPerKey + 4096, Date.now(), { keep, forget: async (id) => void (await responses.delete(id)) }).catch((error: unknown) => {
    warn(`${file} (the store of an older version) could not be moved in: ${error instanceof Error ? error.message : String(error)}; it is tried again at the next start (remove it to drop what it holds)`);
    return undefined;
  });
  if (!count) return;
  const skipped = count.skipped.length > 0 ? `; lines ${count.skipped.slice(0, 10).join(", ")}${count.skipped.length > 10 ? ", …" : ""} were not whole records and were skipped` : "";
  const over = refused > 0 ? `; ${refused} did not fit the budget and were dropped` : "";
  warn(`${file}: ${count.kept} stored responses of the older store file moved into ${directory}${skipped}${over}`);
  await unlink(file);
}

/** Limits of one process: requests at once per caller, and a fixed one-minute window of requests. */
export class LocalLimits implements CallerLimits {
  private readonly running: ConcurrencyLimit;
  private readonly windows = new Map<string, { minute: number; count: number }>();

  constructor(private readonly settings: LimitSettings) {
    this.running = new ConcurrencyLimit(settings.maxConcurrentPerKey);
  }

  async admit(caller: string): Promise<{ release: () => void } | { refused: "concurrency" | "rate" }> {
    const perMinute = this.settings.maxRequestsPerMinute;
    if (perMinute !== undefined) {
      const minute = Math.floor(Date.now() / 60_000);
      const window = this.windows.get(caller);
      if (window && window.minute === minute) {
        if (window.count >= perMinute) return { refused: "rate" };
        window.count += 1;
      } else this.windows.set(caller, { minute, count: 1 });
    }
    const release = this.running.acquire(caller);
    return release ? { release } : { refused: "concurrency" };
  }
}

/**
 * The approval requests one process issued, in memory: one process takes each once; a restart
 * forgets them (the client is asked again).
 */
export class LocalIssuedApprovals implements IssuedApprovals {
  private readonly issued = new Map<string, { approval: IssuedApproval; until: number }>();

  constructor(private readonly ttlSeconds: number) {}

  async put(approval: IssuedApproval): Promise<void> {
    if (this.issued.size >= MAX_ISSUED_APPROVALS) this.issued.delete(this.issued.keys().next().value as string);
    this.issued.set(JSON.stringify([approval.owner, approval.id]), { approval, until: Date.now() + this.ttlSeconds * 1000 });
  }

  async take(owner: string, id: string): Promise<IssuedApproval | undefined> {
    const key = JSON.stringify([owner, id]);
    const entry = this.issued.get(key);
    this.issued.delete(key);
    return entry && entry.until > Date.now() ? entry.approval : undefined;
  }
}
