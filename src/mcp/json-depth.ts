/**
 * How deeply a server's JSON may nest. Real data stays far below (a JSON Schema with its
 * `$defs` rarely passes 30); beyond a few thousand levels every recursive walk, from
 * JSON.stringify to a schema converter, ends in "Maximum call stack size exceeded".
 */
export const MAX_JSON_DEPTH = 512;

/** Whether `value` nests objects and arrays more than `max` levels deep; iterative, so it never overflows itself. */
export function nestedDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== "object") return false;
  if (max < 1) return true;
  // Two parallel stacks and no array of values per object: it runs on every result, so it allocates next to nothing.
  const objects: object[] = [value];
  const depths: number[] = [1];
  for (let top = objects.pop(); top !== undefined; top = objects.pop()) {
    const depth = (depths.pop() as number) + 1;
    if (Array.isArray(top)) {
      for (const child of top) if (stack(objects, depths, child, depth, max)) return true;
    } else {
      for (const key in top) if (Object.hasOwn(top, key) && stack(objects, depths, (top as Record<string, unknown>)[key], depth, max)) return true;
    }
  }
  return false;
}

/** Puts `child` on the stacks at `depth` if it is an object or array; whether that is past `max`. A function of its own, not one made per object. */
function stack(objects: object[], depths: number[], child: unknown, depth: number, max: number): boolean {
  if (child === null || typeof child !== "object") return false;
  if (depth > max) return true;
  objects.push(child);
  depths.push(depth);
  return false;
}

/**
 * Whether JSON text (UTF-8 bytes, parsed or not) opens more than `max` objects and arrays
 * inside each other, checked as it arrives in pieces (a request body as it is read): reading
 * stops at the first piece that goes too deep, before JSON.parse spends its time on any of it.
 * Brackets inside strings do not count, and a string or an escape in one may run from one
 * piece into the next; invalid JSON is left for the parser to refuse.
 */
export class JsonDepthScan {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly max: number = MAX_JSON_DEPTH) {}

  /** Whether the text so far, with `bytes` after it, has gone deeper than the limit. */
  deeperAfter(bytes: Uint8Array): boolean {
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i];
      if (this.escaped) {
        this.escaped = false;
        continue;
      }
      if (this.inString) {
        // A backslash escapes the next byte; a quote ends the string.
        if (byte === 0x5c) this.escaped = true;
        else if (byte === 0x22) this.inString = false;
        continue;
      }
      switch (byte) {
        case 0x22: // "
          this.inString = true;
          break;
        case 0x5b: // [
        case 0x7b: // {
          if (++this.depth > this.max) return true;
          break;
        case 0x5d: // ]
        case 0x7d: // }
          this.depth--;
          break;
      }
    }
    return false;
  }
}

/** The one line for data nested past the limit. */
export function tooDeep(what: string, max: number = MAX_JSON_DEPTH): string {
  return `${what} is nested more than ${max} levels deep (the limit)`;
}
