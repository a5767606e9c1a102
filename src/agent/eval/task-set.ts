import { z } from "zod";

/**
 * The shape of an eval task file (the bundled src/agent/eval/tasks.json, or `--tasks FILE`).
 * Each task is judged by what came out, never by the words: the values the tools returned and
 * the answer states, the zone and format get-date was asked for, or no call at all.
 */

/** Which tools a task is offered: one bundled server's, both, or both among the file's decoys (with tool search on). */
export const TOOLSETS = ["math", "time", "all", "all+decoys"] as const;
export type Toolset = (typeof TOOLSETS)[number];

const ToolName = z.string().min(1).max(64);

const ExpectSchema = z.discriminatedUnion("kind", [
  z.object({
    /** No tool helps: any call is a false call. Each entry must be in the answer (case-insensitive; `a|b` for either). */
    kind: z.literal("none"),
    answer: z.array(z.string().min(1).max(200)).max(10).default([]),
  }),
  z.object({
    /** Each value must come out of a call of an accepted tool and be stated in the answer. */
    kind: z.literal("value"),
    values: z.array(z.number()).min(1).max(10),
    /** The tools that may be called for it (a call of any other is a wrong tool). */
    accept: z.array(ToolName).min(1).max(20),
    /**
     * The steps' own results in a multi-step task. Without them every call must give one of
     * `values` (a call giving another number had wrong arguments); with them a call may give
     * anything (another order of the steps is as right), and only failing calls count as wrong.
     */
    partials: z.array(z.number()).max(20).optional(),
  }),
  z.object({
    /** get-date must be called with this zone (when given) and format; the answer states what it returned. */
    kind: z.literal("date"),
    timezone: z.string().min(1).max(100).optional(),
    format: z.enum(["date-only", "time-only", "timestamp"]),
  }),
]);
export type TaskExpectation = z.infer<typeof ExpectSchema>;

const ReferenceCall = z.object({ tool: ToolName, arguments: z.record(z.string(), z.unknown()) });

const TaskSchema = z.object({
  id: z.string().min(1).max(100),
  category: z.string().min(1).max(40),
  prompt: z.string().min(1).max(4000),
  tools: z.enum(TOOLSETS),
  expect: ExpectSchema,
  /** One right way to do it, step by step (each step's calls can go in one reply); documentation and the tests' scripted model. */
  reference: z.array(z.array(ReferenceCall).max(10)).max(10).optional(),
});
export type EvalTask = z.infer<typeof TaskSchema>;

const DecoySchema = z.object({
  name: ToolName.regex(/^[a-zA-Z0-9_-]+$/),
  description: z.string().max(1000),
  inputSchema: z.record(z.string(), z.unknown()),
});
export type DecoyTool = z.infer<typeof DecoySchema>;

/** Tasks one file may hold: a run is tasks × modes model turns. */
export const MAX_TASKS = 2000;

const TaskFileSchema = z.object({
  version: z.literal(1),
  decoys: z.array(DecoySchema).max(500).default([]),
  tasks: z.array(TaskSchema).min(1).max(MAX_TASKS),
});
export type TaskSet = z.infer<typeof TaskFileSchema>;

export class TaskSetError extends Error {}

/** A task file's content checked against the schema; ids must be unique. Throws one line naming the file and the place. */
export function parseTaskSet(data: unknown, source: string): TaskSet {
  const parsed = TaskFileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "(top level)";
    throw new TaskSetError(`${source}: ${where}: ${issue?.message ?? "not a task file"}`);
  }
  const seen = new Set<string>();
  for (const task of parsed.data.tasks) {
    if (seen.has(task.id)) throw new TaskSetError(`${source}: task id "${task.id}" appears twice`);
    seen.add(task.id);
  }
  return parsed.data;
}
