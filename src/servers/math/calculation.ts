import { z } from "zod";
import { evaluateExpression } from "./expression.js";

// The result shapes of the math tools: one zod schema each, used as the tools'
// outputSchema and as the TypeScript type of what the handlers build.

export const calculationSchema = z.object({
  operation: z.string().describe("What was computed, e.g. 'addition'"),
  expression: z.string().describe("The computation written out, e.g. '6 × 5'"),
  result: z.number(),
  formatted: z.string().describe("Expression and result for display, e.g. '6 × 5 = 30'"),
});
export type Calculation = z.infer<typeof calculationSchema>;

export const batchItemSchema = z.object({
  expression: z.string(),
  result: z.number().optional().describe("Present when the expression was computed"),
  error: z
    .object({ message: z.string(), column: z.number().int().describe("1-based column within this expression") })
    .optional()
    .describe("Present instead of result when the expression could not be computed"),
  formatted: z.string(),
});
export type BatchItem = z.infer<typeof batchItemSchema>;

export const batchSchema = z.object({
  operation: z.literal("batch"),
  expression: z.string().describe("The operations as given"),
  succeeded: z.number().int(),
  failed: z.number().int(),
  results: z.array(batchItemSchema),
});
export type Batch = z.infer<typeof batchSchema>;

/** Most expressions one batch_calculate call will compute. */
export const MAX_BATCH = 100;

/**
 * Renders a number without binary floating-point noise (0.1 + 0.2 shows as 0.3) and without
 * losing a digit: the shortest form that reads back as the same double (every digit it holds),
 * except where rounding to 15 significant digits moves it by a few units in the last place
 * only, which is the noise of the arithmetic, not a digit of the answer.
 */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value) || Number.isSafeInteger(value)) return String(value);
  // A whole number past 2^53 written out exactly (String() would pad 2^60 with zeros).
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return BigInt(value).toString();
  const rounded = Number(value.toPrecision(15));
  const noise = Math.abs(value) * Number.EPSILON * NOISE_ULPS;
  return String(Math.abs(rounded - value) <= noise ? rounded : value);
}

/** How many units in the last place of error arithmetic may leave, and rounding hides. */
const NOISE_ULPS = 4;

function operand(value: number): string {
  const text = formatNumber(value);
  return value < 0 ? `(${text})` : text;
}

export function binaryCalculation(operation: string, a: number, symbol: string, b: number, result: number): Calculation {
  const expression = `${operand(a)} ${symbol} ${operand(b)}`;
  return { operation, expression, result, formatted: `${expression} = ${formatNumber(result)}` };
}

export function squareRootCalculation(value: number, result: number): Calculation {
  const expression = `√${operand(value)}`;
  return { operation: "square_root", expression, result, formatted: `${expression} = ${formatNumber(result)}` };
}

function batchItem(expression: string): BatchItem {
  const evaluated = evaluateExpression(expression);
  if (evaluated.ok) {
    return { expression, result: evaluated.value, formatted: `${expression} = ${formatNumber(evaluated.value)}` };
  }
  const { error } = evaluated;
  return { expression, error, formatted: `${expression}: error at column ${error.column}: ${error.message}` };
}

/** Splits on ';' (or new lines) and computes each expression on its own, so one bad one spoils nothing else. */
export function batchCalculation(operations: string): Batch | { error: string } {
  const expressions = operations
    .split(/[;\n]/)
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  if (expressions.length === 0) return { error: "operations holds no expression; separate expressions with ';', e.g. \"2+3; 5*4\"" };
  if (expressions.length > MAX_BATCH) return { error: `operations holds ${expressions.length} expressions; at most ${MAX_BATCH} per call` };
  const results = expressions.map(batchItem);
  const failed = results.filter((item) => item.error !== undefined).length;
  return { operation: "batch", expression: operations, succeeded: results.length - failed, failed, results };
}
