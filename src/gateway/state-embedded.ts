import { chmod, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import nedb from "@seald-io/nedb";
import { ConcurrencyLimit } from "./access.js";
import type { CallerLimits, GatewayState, IssuedApproval, IssuedApprovals, LimitSettings, ResponseStore, StoredResponse } from "./state.js";

// The package is CommonJS whose types declare an ES default export; at run time the default import is the class.
const Datastore = nedb as unknown as typeof nedb.default;

/** Approval requests one process remembers at most; past it the oldest are forgotten (their approvals refused). */
export const MAX_ISSUED_APPROVALS = 100_000;

/** Dead records are dropped from the file itself (nedb appends) this often. */
const COMPACT_EVERY_MS = 10 * 60_000;

interface Row {
  _id: string;
  expiresAt: Date;
  /** The record as JSON text: nedb refuses keys with `$` or `.`, which tool schemas have. */
  data: string;
}

/**
 * The state of one gateway process: stored responses in an nedb file (0600, in a 0700
 * directory), or in memory without a file; limits counted here.
 */
export async function openEmbeddedState(options: { file?: string; ttlSeconds: number; limits: LimitSettings }): Promise<GatewayState> {
  const { file } = options;
  if (file !== undefined) await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const db = new Datastore<Row>(file === undefined ? {} : { filename: file, modes: { fileMode: 0o600, dirMode: 0o700 } });
  await db.loadDatabaseAsync();
  // A file made by an older version, or copied in, is made private too.
  if (file !== undefined) await chmod(file, 0o600);
  await db.ensureIndexAsync({ fieldName: "expiresAt", expireAfterSeconds: 0 });
  if (file !== undefined) db.setAutocompactionInterval(COMPACT_EVERY_MS);
  const responses: ResponseStore = {
    async get(id) {
      const row = await db.findOneAsync({ _id: id });
      return row ? (JSON.parse(row.data) as StoredResponse) : undefined;
    },
    async put(record) {
      const row: Row = { _id: record.id, expiresAt: new Date(Date.now() + options.ttlSeconds * 1000), data: JSON.stringify(record) };
      await db.updateAsync({ _id: record.id }, row, { upsert: true });
    },
    async delete(id) {
      return (await db.removeAsync({ _id: id }, {})) > 0;
    },
  };
  return {
    description: file === undefined ? "memory" : `file ${file}`,
    responses,
    limits: new LocalLimits(options.limits),
    issuedApprovals: new LocalIssuedApprovals(options.ttlSeconds),
    async close() {
      db.stopAutocompaction();
      if (file !== undefined) await db.compactDatafileAsync();
    },
  };
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
