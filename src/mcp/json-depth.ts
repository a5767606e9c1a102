/**
 * How deeply a server's JSON may nest. Real data stays far below (a JSON Schema with its
 * `$defs` rarely passes 30); beyond a few thousand levels every recursive walk, from
 * JSON.stringify to a schema converter, ends in "Maximum call stack size exceeded".
 */
export const MAX_JSON_DEPTH = 512;

/** Whether `value` nests objects and arrays more than `max` levels deep; iterative, so it never overflows itself. */
export function nestedDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const stack: { value: object; depth: number }[] = [];
  if (value !== null && typeof value === "object") stack.push({ value, depth: 1 });
  for (let top = stack.pop(); top; top = stack.pop()) {
    if (top.depth > max) return true;
    for (const child of Array.isArray(top.value) ? top.value : Object.values(top.value)) {
      if (child !== null && typeof child === "object") stack.push({ value: child as object, depth: top.depth + 1 });
    }
  }
  return false;
}

/** The one line for data nested past the limit. */
export function tooDeep(what: string): string {
  return `${what} is nested more than ${MAX_JSON_DEPTH} levels deep (the limit)`;
}
