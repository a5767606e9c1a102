/**
 * Splits a byte stream into newline-delimited messages in linear time, holding at most
 * `maxBytes` of one line. A longer line is not kept: it is counted to its end and reported
 * once, with its first and last bytes, which are enough to find the JSON-RPC id it carried.
 */
export interface OversizeLine {
  bytes: number;
  head: string;
  tail: string;
}

const EDGE_BYTES = 256;
const NOTHING = Buffer.alloc(0);

export class JsonLineSplitter {
  private chunks: Buffer[] = [];
  private size = 0;
  private head: Buffer | undefined;
  private tail = NOTHING;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversize: (line: OversizeLine) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      this.add(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
    this.head = undefined;
    this.tail = NOTHING;
  }

  private add(part: Buffer): void {
    if (part.length === 0) return;
    this.size += part.length;
    if (this.head === undefined && this.size <= this.maxBytes) {
      this.chunks.push(part);
      return;
    }
    if (this.head === undefined) {
      // The line just passed the limit: keep its edges and let the rest go.
      const held = Buffer.concat([...this.chunks, part]);
      this.head = held.subarray(0, EDGE_BYTES);
      this.tail = Buffer.from(held.subarray(-EDGE_BYTES));
      this.chunks = [];
      return;
    }
    this.tail = Buffer.concat([this.tail, part.subarray(-EDGE_BYTES)]).subarray(-EDGE_BYTES);
  }

  private endLine(): void {
    const { chunks, size, head, tail } = this;
    this.clear();
    if (head !== undefined) {
      this.onOversize({ bytes: size, head: head.toString("utf8"), tail: tail.toString("utf8") });
      return;
    }
    const line = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString("utf8").replace(/\r$/, "");
    if (line.trim() !== "") this.onLine(line);
  }
}

/** The id of a JSON-RPC message seen only by its edges: first in the object, or last. */
export function idFromEdges({ head, tail }: Pick<OversizeLine, "head" | "tail">): string | number | undefined {
  const id = String.raw`"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")`;
  const match = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?${id}`).exec(head) ?? new RegExp(String.raw`,\s*${id}\s*\}\s*$`).exec(tail);
  const raw = match?.[1];
  if (raw === undefined) return undefined;
  return raw.startsWith('"') ? (JSON.parse(raw) as string) : Number(raw);
}

/** "70 MiB", "1.5 MiB", "12 KiB": what a user reads for a size near the limits. */
export function mebibytes(bytes: number): string {
  if (bytes < 2 ** 20) return `${Math.ceil(bytes / 1024)} KiB`;
  const mib = bytes / 2 ** 20;
  return `${mib >= 10 ? Math.round(mib) : Number(mib.toFixed(1))} MiB`;
}
