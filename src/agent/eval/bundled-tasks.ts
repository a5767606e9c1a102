import bundled from "./tasks.json" with { type: "json" };
import { parseTaskSet, type TaskSet } from "./task-set.js";

/**
 * The task set toolbridge ships (written by scripts/eval-tasks.mjs): imported as a module so
 * that it travels in the built files, bundled CLI included.
 */
export function bundledTaskSet(): TaskSet {
  return parseTaskSet(bundled, "the bundled task set");
}
